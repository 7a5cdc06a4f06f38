// The page's method never yields: its page is stopped from outside it.
export default async (api) => {
  await api.call("spin");
};

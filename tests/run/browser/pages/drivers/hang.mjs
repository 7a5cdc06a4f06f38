// The page's method never settles: only a deadline kept outside the page can stop the drive.
export default async (api) => {
  await api.call("hang");
};

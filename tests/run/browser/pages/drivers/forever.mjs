export default async () => {
  await new Promise(() => {});
};

// Never yields: only a deadline kept outside the page can stop it.
export default async () => {
  for (;;) {}
};

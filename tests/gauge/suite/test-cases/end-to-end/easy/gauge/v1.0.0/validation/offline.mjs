// offline: the page may reach only the loopback server; its fetches elsewhere fail and the drive goes on.
const TARGETS = ['http://example.com/', '__HOST_URL__'];

export default async (api) => {
  const seen = [];
  for (const url of TARGETS) seen.push(await api.reach(url));
  seen.push(await api.reach('index.html'));
  const value = await api.add(1);
  return { verdicts: { offline: value === 1 }, notes: seen.join('; ') };
};

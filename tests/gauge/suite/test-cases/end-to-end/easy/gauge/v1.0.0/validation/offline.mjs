// offline: the page may reach only the loopback server; fetches elsewhere fail and the drive goes on.
const TARGETS = ['http://example.com/', '__HOST_URL__'];

export default async (api) => {
  const seen = [];
  for (const url of TARGETS) {
    try {
      const response = await fetch(url, { mode: 'no-cors', cache: 'no-store' });
      seen.push(`${url} answered (${response.type})`);
    } catch (error) {
      seen.push(`${url} failed: ${error.name}: ${error.message}`);
    }
  }
  const own = await fetch(new URL('index.html', location.href));
  seen.push(`the build's own server answered ${own.status}`);
  const value = await api.add(1);
  return { verdicts: { offline: value === 1 }, notes: seen.join('; ') };
};

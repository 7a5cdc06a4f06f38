// excluded: always false; errata.toml excludes the point, so its failure is an xfail.
export default async () => ({ verdicts: { excluded: false }, notes: 'this driver is known to be wrong' });

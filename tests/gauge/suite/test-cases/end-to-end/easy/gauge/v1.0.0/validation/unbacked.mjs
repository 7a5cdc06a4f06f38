// unbacked: answers for "counts", which is not the point this script backs.
export default async () => ({ verdicts: { counts: true } });

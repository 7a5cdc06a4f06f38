export default async () => ({ verdicts: { scoring: true } });

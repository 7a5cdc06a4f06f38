export default async () => ({ verdicts: { scoring: "yes" } });

export default async () => ({ verdicts: { scorin: true }, notes: "typo in the id" });

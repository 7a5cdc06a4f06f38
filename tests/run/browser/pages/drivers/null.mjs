export default async () => ({
  verdicts: { scoring: null },
  notes: "precondition unmet: this world has no goal",
});

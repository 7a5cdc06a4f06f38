export default async (api) => {
  api.step(20);
  await api.screenshot("goal");
  return { verdicts: { scoring: true } };
};

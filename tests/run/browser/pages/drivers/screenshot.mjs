export default async (api) => {
  await api.step(20);
  await api.screenshot("goal");
  return { verdicts: { scoring: true } };
};

export default async (api) => {
  await api.step(1);
  return { verdicts: { scoring: false }, notes: "the ball never crossed the goal" };
};

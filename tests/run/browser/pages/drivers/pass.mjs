// Uses every way to reach the handle: forwarded methods, api.call, api.settle.
export default async (api) => {
  await api.reset();
  await api.step(3);
  await api.call("step", 2);
  await api.settle(20);
  const state = await api.snapshot();
  return { verdicts: { scoring: state.x === 5 && state.resets === 1 }, notes: `x=${state.x}` };
};

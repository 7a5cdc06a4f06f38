// Moves the square across the field for about a second, so the clip has motion in it.
export default async (api) => {
  await api.reset();
  for (let frame = 0; frame < 20; frame += 1) {
    await api.step(2);
    await api.settle(50);
  }
  return { verdicts: { scoring: (await api.snapshot()).x === 40 } };
};

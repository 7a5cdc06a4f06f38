// throws: a driver bug surfaces as the verdict's reason, its stack trimmed to this file.
const expectZero = (value) => {
  throw new Error(`the dial reads ${value} after a reset`);
};

export default async (api) => {
  await api.add(5);
  expectZero(await api.value());
  return { verdicts: { throws: true } };
};

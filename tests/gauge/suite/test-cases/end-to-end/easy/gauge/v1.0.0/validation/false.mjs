// doubles: adding 2 to 1 reads 3, not double; the point fails with notes that say so.
export default async (api) => {
  await api.reset();
  await api.add(1);
  const value = await api.add(2);
  return { verdicts: { doubles: value === 4 }, notes: `1 + 2 read ${value}, expected 4` };
};

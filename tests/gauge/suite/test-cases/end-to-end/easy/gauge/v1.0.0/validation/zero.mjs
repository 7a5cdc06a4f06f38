// dial.zero: a reset gauge reads 0; image "empty" is the empty bar.
export default async (api) => {
  const value = await api.reset();
  await api.screenshot('empty');
  return { verdicts: { 'dial.zero': value === 0 }, notes: `read ${value} after a reset` };
};

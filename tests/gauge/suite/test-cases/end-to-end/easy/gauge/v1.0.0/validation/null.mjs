// unmet: the build has no second dial, so this driver decides nothing.
export default async (api) => {
  const { ops } = await api.probe(['second']);
  if (ops.second !== 'function') {
    return { verdicts: { unmet: null }, notes: 'the build has no second dial to compare' };
  }
  return { verdicts: { unmet: true } };
};

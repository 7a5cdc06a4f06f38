// slow: waits far longer than the test's --tcab-driver-timeout.
export default async (api) => {
  await api.settle(60000);
  return { verdicts: { slow: true } };
};

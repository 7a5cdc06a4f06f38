// counts: three adds read back as 3; image "dial" is the bar at 3, video "clip" the whole drive.
export default async (api) => {
  await api.reset();
  for (let i = 0; i < 3; i++) {
    await api.add(1);
    await api.settle(100);
  }
  const value = await api.value();
  await api.screenshot('dial');
  return { verdicts: { counts: value === 3 }, notes: `read ${value} after three adds` };
};

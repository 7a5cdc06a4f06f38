// ball-spin.stationary: a paddle standing still at contact imparts no spin, so a flat ball comes back flat.
// Video "straight": the same return replayed in real time at the end of the drive.
const ID = 'ball-spin.stationary';

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  const setUp = async () => {
    await api.setPaddle('left', 360, 0);
    await api.setPaddle('right', 360, 0);
    return api.setBall(900, 360, 8, 0, 0);
  };
  let s = await setUp();
  for (let t = 0; s.ball.vx > 0 && t < 240; t++) s = await api.step(1);
  if (!(s.ball.vx < 0)) return { verdicts: { [ID]: null }, notes: 'no return off the right paddle within 240 ticks' };
  let worst = 0;
  for (let t = 0; t < 60; t++) {
    s = await api.step(1);
    worst = Math.max(worst, Math.abs(s.ball.spin), Math.abs(s.ball.vy));
  }
  await setUp();
  await api.resume();
  await api.settle(1600);
  await api.pause();
  return { verdicts: { [ID]: worst < 1e-6 }, notes: `max |spin| or |vy| after a still-paddle return: ${worst.toFixed(4)} (expected 0)` };
};

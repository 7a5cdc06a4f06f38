// spin.stationary: a paddle standing still at contact imparts no spin, so a flat ball comes back flat.
// Video "straight": the same return replayed in real time at the end of the drive.
const ID = 'spin.stationary';
const EPS = 1e-6;

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  // A flat ball at the right paddle's centre, both paddles still: no deflection, no swing.
  const setUp = async () => {
    await api.setPaddle('left', 360, 0);
    await api.setPaddle('right', 360, 0);
    return api.setBall(900, 360, 8, 0, 0);
  };
  let s = await setUp();
  for (let t = 0; s.ball.vx > 0 && t < 240; t++) s = await api.step(1);
  if (!(s.ball.vx < 0)) {
    return { verdicts: { [ID]: null }, notes: `no return off the right paddle within 240 ticks (ball x=${s.ball.x})` };
  }
  // Watch the return for a second: spin and vy must stay exactly zero.
  let maxSpin = Math.abs(s.ball.spin), maxVy = Math.abs(s.ball.vy);
  const y0 = s.ball.y;
  for (let t = 0; t < 60; t++) {
    s = await api.step(1);
    maxSpin = Math.max(maxSpin, Math.abs(s.ball.spin));
    maxVy = Math.max(maxVy, Math.abs(s.ball.vy));
  }
  const drift = Math.abs(s.ball.y - y0);
  const pass = maxSpin < EPS && maxVy < EPS && drift < 0.5;

  await setUp();
  await api.resume();
  await api.settle(1600);
  await api.pause();
  return {
    verdicts: { [ID]: pass },
    notes: `return off a still paddle: max |spin| ${maxSpin.toFixed(4)}, max |vy| ${maxVy.toFixed(3)}, y drift ${drift.toFixed(2)} px over 60 ticks (expected 0)`,
  };
};

// spin.moving: a paddle moving at contact imparts spin, and the spin curves the ball's path.
// Image "curve": a still taken a few ticks after the hit, the ball's trail bending away.
const ID = 'spin.moving';

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  await api.setPaddle('left', 120, 0); // out of the way
  // The right paddle sweeps down through the ball's line as the ball arrives.
  await api.setPaddle('right', 330, 6);
  let s = await api.setBall(1160, 360, 8, 0, 0);
  for (let t = 0; s.ball.vx > 0 && t < 60; t++) s = await api.step(1);
  if (!(s.ball.vx < 0)) {
    return { verdicts: { [ID]: null }, notes: `the moving paddle never returned the ball (ball x=${s.ball.x})` };
  }
  const hit = s.ball;
  // A curve is a changing vy: compare it one tick after the hit and 20 ticks later.
  s = await api.step(1);
  const vy1 = s.ball.vy;
  s = await api.step(20);
  const bend = s.ball.vy - vy1;
  const pass = Math.abs(hit.spin) > 1e-3 && Math.abs(bend) > 0.5;
  await api.step(8);
  await api.screenshot('curve');
  return {
    verdicts: { [ID]: pass },
    notes: `paddle vy 6 at contact: spin ${hit.spin.toFixed(3)}, vy ${vy1.toFixed(2)} -> ${s.ball.vy.toFixed(2)} over 20 ticks (bend ${bend.toFixed(2)}, need spin != 0 and |bend| > 0.5)`,
  };
};

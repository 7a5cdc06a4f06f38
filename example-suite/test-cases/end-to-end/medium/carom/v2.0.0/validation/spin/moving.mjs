// spin.moving, a drive(api, ttc): a paddle moving at contact imparts spin, and the spin curves
// the ball's path. Image "curve": a still a few ticks after the hit, the trail bending away.
import { startPlay } from '../_helpers.mjs';

export async function drive(api, ttc) {
  const check = ttc.checkOne('spin.moving');
  await startPlay(api);
  await api.call('setPaddle', 'left', 120, 0); // out of the way
  // The right paddle sweeps down through the ball's line as the ball arrives.
  await api.call('setPaddle', 'right', 330, 6);
  await api.call('setBall', 1160, 360, 8, 0, 0);
  const { snap, hit } = await api.until((s) => s.ball.vx < 0, { max: 60 });
  check.assertOk('the moving paddle returns the ball', hit);
  // A curve is a changing vy: compare it one tick after the hit and 20 ticks later.
  const vy1 = (await api.advance(1)).ball.vy;
  const vy21 = (await api.advance(20)).ball.vy;
  check.expectGt('|spin| imparted by a paddle moving at 6 px/tick', Math.abs(snap.ball.spin), 1e-3);
  check.expectGt('|change of vy| over the 20 ticks after the hit', Math.abs(vy21 - vy1), 0.5);
  await api.advance(8);
  await api.screenshot('curve');
  return check.verdict();
}

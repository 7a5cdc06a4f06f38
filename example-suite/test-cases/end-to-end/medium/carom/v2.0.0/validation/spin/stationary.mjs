// spin.stationary, a validation item made by a factory: a paddle standing still at contact
// imparts no spin, so a flat ball comes back flat. Video "straight": act, the return filmed.
import { FLAT, poseFlatReturn, startPlay } from '../_helpers.mjs';

export default function item() {
  let returned;
  let watched;
  const worst = { spin: 0, vy: 0 };
  return {
    id: 'spin.stationary',
    async arrange(api) {
      await startPlay(api);
      await poseFlatReturn(api);
    },
    async act(api) {
      returned = await api.until((s) => s.ball.vx < 0, { max: 240 });
      const y0 = returned.snap.ball.y;
      // Watch the return for a second: every tick's spin and vy are read.
      watched = await api.until((s) => {
        worst.spin = Math.max(worst.spin, Math.abs(s.ball.spin));
        worst.vy = Math.max(worst.vy, Math.abs(s.ball.vy));
        return false;
      }, { max: 60 });
      watched.drift = Math.abs(watched.snap.ball.y - y0);
    },
    assert(api, check) {
      check.expectOk('the right paddle returns the ball', returned.hit);
      check.expectLt('max |spin| over 60 ticks of the return', worst.spin, FLAT);
      check.expectLt('max |vy| over 60 ticks of the return', worst.vy, FLAT);
      check.expectLt('vertical drift of the return (px)', watched.drift, 0.5);
    },
  };
}

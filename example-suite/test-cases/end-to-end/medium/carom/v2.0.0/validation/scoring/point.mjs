// scoring.point, a validation item written as a plain object: a ball crossing the left goal
// line scores exactly one point for the right player. Video "goal": act, the goal filmed.
import { startPlay } from '../_helpers.mjs';

let before;
let gains;

export default {
  id: 'scoring.point',
  async arrange(api) {
    await startPlay(api);
    await api.call('setPaddle', 'left', 100, 0); // far from the ball's line: it cannot save
    before = (await api.call('setBall', 200, 600, -8, 0, 0)).score;
  },
  async act(api) {
    // Count every change tick by tick, so a point scored twice (or to the wrong side) shows.
    gains = [0, 0];
    let previous = before;
    await api.until((s) => {
      gains = gains.map((gain, side) => gain + Math.max(0, s.score[side] - previous[side]));
      previous = s.score;
      return false;
    }, { max: 100 });
  },
  assert(api, check) {
    check.expectEq('points gained by the right player', gains[1], 1);
    check.expectEq('points gained by the left player', gains[0], 0);
  },
};

// frenzy.escalation, in the earliest form (an asserter's records as the verdict): in Frenzy
// every hit multiplies the ball speed (x1.25, uncapped), so three hits take it past 1.9x the
// serve speed. A build not in Frenzy mode cannot show it: inconclusive, left to the reviewer.
// Image "fast": the rally after the third hit.
import { asserter, poseFlatReturn, startPlay, unmetPrecondition } from '../_helpers.mjs';

export default async function drive(api) {
  const rec = asserter();
  await startPlay(api);
  const { mode } = await api.snapshot();
  if (mode !== 'frenzy') throw unmetPrecondition(`the build is in mode "${mode}", not "frenzy"`);
  // Two still, centred paddles keep a flat rally going without deflection or spin.
  let s = await poseFlatReturn(api, 640);
  const initial = s.speed;
  const speeds = [];
  for (let t = 0; speeds.length < 3 && t < 600 && s.ball.vx !== 0; t++) {
    const dir = Math.sign(s.ball.vx);
    s = await api.step(1);
    if (Math.sign(s.ball.vx) === -dir) speeds.push(s.speed);
  }
  rec.check(`three paddle hits (saw ${speeds.length})`, speeds.length === 3);
  rec.check(`speed ${initial} -> ${speeds.map((v) => v.toFixed(2)).join(' -> ')} is past x1.9`, s.speed > initial * 1.9);
  await api.step(6);
  await api.screenshot('fast');
  return { verdicts: { 'frenzy.escalation': rec.assertions } };
}

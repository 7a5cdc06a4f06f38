// frenzy.escalation: in Frenzy every hit multiplies the ball speed (x1.25, uncapped),
// so three hits take it past 1.9x the serve speed. Image "fast": the rally after the third hit.
const ID = 'frenzy.escalation';

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  const { mode } = await api.snapshot();
  if (mode !== 'frenzy') {
    return { verdicts: { [ID]: null }, notes: `the build is in mode "${mode}", not "frenzy"` };
  }
  // Two still, centred paddles keep a flat rally going without deflection or spin.
  await api.setPaddle('left', 360, 0);
  await api.setPaddle('right', 360, 0);
  let s = await api.setBall(640, 360, 8, 0, 0);
  const initial = s.speed;
  const speeds = [];
  for (let t = 0; speeds.length < 3 && t < 600; t++) {
    const dir = Math.sign(s.ball.vx);
    s = await api.step(1);
    if (Math.sign(s.ball.vx) === -dir) speeds.push(s.speed);
    if (s.ball.vx === 0) break; // the ball left play
  }
  if (speeds.length < 3) {
    return { verdicts: { [ID]: null }, notes: `only ${speeds.length} paddle hits happened; the rally could not be set up` };
  }
  const pass = s.speed > initial * 1.9;
  await api.step(6);
  await api.screenshot('fast');
  return {
    verdicts: { [ID]: pass },
    notes: `speed ${initial} -> ${speeds.map((v) => v.toFixed(2)).join(' -> ')} after 3 hits (x${(s.speed / initial).toFixed(3)}, need > x1.9)`,
  };
};

// scoring.point: a ball crossing the left goal line scores exactly one point for the right player.
// Video "goal": the same goal replayed in real time at the end of the drive.
const ID = 'scoring.point';

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  const setUp = async (x) => {
    await api.setPaddle('left', 100, 0); // far from the ball's line: it cannot save
    return api.setBall(x, 600, -8, 0, 0);
  };
  let s = await setUp(200);
  const before = s.score;
  // Count every change tick by tick, so a point scored twice (or to the wrong side) shows.
  let rightGains = 0, leftGains = 0, prev = before;
  for (let t = 0; t < 90; t++) {
    s = await api.step(1);
    rightGains += Math.max(0, s.score[1] - prev[1]);
    leftGains += Math.max(0, s.score[0] - prev[0]);
    prev = s.score;
  }
  const pass = rightGains === 1 && leftGains === 0 && s.score[1] === before[1] + 1;

  await setUp(500);
  await api.resume();
  await api.settle(1600);
  await api.pause();
  return {
    verdicts: { [ID]: pass },
    notes: `score ${before.join(':')} -> ${s.score.join(':')} over 90 ticks; right gained ${rightGains}, left ${leftGains} (expected 1 and 0)`,
  };
};

// scoring-point: a ball crossing the left goal line scores exactly one point for the right player.
// Video "goal": the same goal replayed in real time at the end of the drive.
const ID = 'scoring-point';

export default async (api) => {
  await api.reset({ seed: 1, screen: 'play' });
  await api.pause();
  const setUp = async (x) => {
    await api.setPaddle('left', 100, 0);
    return api.setBall(x, 600, -8, 0, 0);
  };
  const before = (await setUp(200)).score;
  let changes = 0, prev = before, s;
  for (let t = 0; t < 90; t++) {
    s = await api.step(1);
    if (s.score.join() !== prev.join()) changes++;
    prev = s.score;
  }
  const pass = changes === 1 && s.score[0] === before[0] && s.score[1] === before[1] + 1;
  await setUp(500);
  await api.resume();
  await api.settle(1600);
  await api.pause();
  return { verdicts: { [ID]: pass }, notes: `score ${before.join(':')} -> ${s.score.join(':')} in ${changes} change(s) over 90 ticks (expected 0:1 in 1)` };
};

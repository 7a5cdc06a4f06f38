// Reporter-side: decides ball-physics/spin-decay against a build. Never seeded.
// Puts spin on a ball moving across the field and checks it falls, then reaches zero.
import { requireApi, type JudgeApi } from "./_ball";

const TICKS = 240; // four seconds at 60 Hz
const START_SPIN = 4;

export default async function spinDecay(api: JudgeApi) {
  const game = await requireApi(api);
  await game.reset({ x: 100, y: 360, vx: 200, vy: 0, spin: START_SPIN });
  const seen: number[] = [];
  for (let tick = 0; tick < TICKS; tick += 1) {
    await game.step(1);
    seen.push(Math.abs((await game.snapshot()).ball.spin));
  }
  const never = seen.every((spin, i) => i === 0 || spin <= seen[i - 1] + 1e-9);
  const end = seen[seen.length - 1];
  const decayed = never && end < 1e-3;
  return {
    verdicts: { "spin-decay": decayed },
    notes: `|spin| ${START_SPIN} -> ${seen[59].toFixed(3)} after 1 s -> ${end.toFixed(4)} after ${TICKS / 60} s` +
      (never ? "" : " (it grew on the way)"),
  };
}

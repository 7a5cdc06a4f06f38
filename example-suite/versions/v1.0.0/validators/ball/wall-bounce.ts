// Reporter-side: decides ball-physics/wall-bounce against a build. Never seeded.
// Sends the ball straight up at the top wall and checks it comes back down as fast as it went.
import { requireApi, speed, type JudgeApi } from "./_ball";

const TICKS = 180;

export default async function wallBounce(api: JudgeApi) {
  const game = await requireApi(api);
  await game.reset({ x: 640, y: 120, vx: 0, vy: -400, spin: 0 });
  const before = speed((await game.snapshot()).ball);
  for (let tick = 1; tick <= TICKS; tick += 1) {
    await game.step(1);
    const { ball } = await game.snapshot();
    if (ball.vy > 0) {
      const after = speed(ball);
      const kept = Math.abs(after - before) <= before * 0.01;
      return {
        verdicts: { "wall-bounce": kept },
        notes: `reflected after ${tick} ticks at y ${ball.y.toFixed(1)}; speed ${before.toFixed(1)} -> ${after.toFixed(1)} px/s`,
      };
    }
  }
  return { verdicts: { "wall-bounce": false }, notes: `the ball never came back down within ${TICKS} ticks` };
}

// Reporter-side helpers shared by the ball validators (bundled into each one by esbuild).

export interface Ball { x: number; y: number; vx: number; vy: number; spin: number }
export interface Snapshot { ball: Ball; width: number; height: number; tick: number }

/** The debug API of a Carom build (`[instrumentation] handle`), as the validators use it: each
 * call crosses from the judge runtime into the page, so each answers a promise. */
export interface CaromApi {
  reset(options?: Partial<Ball>): Promise<unknown>;
  step(ticks?: number): Promise<unknown>;
  snapshot(): Promise<Snapshot>;
}

/** What the judge adds: `probe` asks the page which ops its handle has. */
export interface JudgeApi extends CaromApi {
  probe(ops: string[]): Promise<{ version: unknown; ops: Record<string, string> }>;
}

export const speed = (ball: Ball): number => Math.hypot(ball.vx, ball.vy);

export async function requireApi(api: JudgeApi): Promise<CaromApi> {
  const { ops } = await api.probe(["reset", "step", "snapshot"]);
  for (const [op, kind] of Object.entries(ops)) {
    if (kind !== "function") throw new Error(`the build's debug API has no ${op}()`);
  }
  return api;
}

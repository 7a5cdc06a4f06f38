// Reporter-side helpers shared by the ball validators (bundled into each one when served).

export interface Ball { x: number; y: number; vx: number; vy: number; spin: number }
export interface Snapshot { ball: Ball; width: number; height: number; tick: number }

/** The debug API of a Carom build (`[instrumentation] handle`), as the validators use it. */
export interface CaromApi {
  reset(options?: Partial<Ball>): void;
  step(ticks?: number): void;
  snapshot(): Snapshot;
}

export const speed = (ball: Ball): number => Math.hypot(ball.vx, ball.vy);

export function requireApi(api: Partial<CaromApi>): CaromApi {
  for (const op of ["reset", "step", "snapshot"] as const) {
    if (typeof api[op] !== "function") throw new Error(`the build's debug API has no ${op}()`);
  }
  return api as CaromApi;
}

// Shared by Carom's validation scripts (imported as "../_helpers.mjs"): the field's geometry,
// set-ups posed through window.__carom, and the two markers the runtime reads.

export const PADDLE_X = { left: 56, right: 1224 }; // each paddle's hitting face
export const FLAT = 1e-6; // below this a spin or vertical speed counts as none

/** An error the runtime reads as "inconclusive": the verdict is left to the reviewer. */
export function unmetPrecondition(reason) {
  const error = new Error(reason);
  error.ttcPreconditionUnmet = true;
  return error;
}

/** The earliest form's recorder: `{ verdicts: { id: rec.assertions } }` decides the verdict. */
export function asserter() {
  const assertions = [];
  return { assertions, check: (label, pass) => assertions.push({ label, pass: Boolean(pass) }) };
}

/** A match in play, the clock the script's: nothing moves until it is stepped. */
export async function startPlay(api) {
  await api.reset({ seed: 1, screen: 'play' });
  await api.call('pause');
}

/** Both paddles centred and still, and a flat ball heading for the right paddle's centre. */
export async function poseFlatReturn(api, x = 900) {
  await api.call('setPaddle', 'left', 360, 0);
  await api.call('setPaddle', 'right', 360, 0);
  return api.call('setBall', x, 360, 8, 0, 0);
}

// Shared by the scripts beside it, imported as "./_helpers.mjs" from the reporter-side path.
export const unmetPrecondition = (reason) => Object.assign(new Error(reason), { ttcPreconditionUnmet: true });

export function asserter() {
  const assertions = [];
  return { assertions, check: (label, pass) => assertions.push({ label, pass: Boolean(pass) }) };
}

export async function fresh(api, color) {
  await api.reset();
  await api.call("paint", color);
}

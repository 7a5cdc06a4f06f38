// The earliest form: an asserter's records as the verdict.
import { asserter } from "./_helpers.mjs";

export default async function drive(api) {
  const rec = asserter();
  await api.reset();
  await api.step(4);
  rec.check("four ticks", (await api.snapshot()).tick === 4);
  rec.check("five ticks", (await api.snapshot()).tick === 5);
  return { verdicts: { scoring: rec.assertions }, notes: { scoring: "stepped 4" } };
}

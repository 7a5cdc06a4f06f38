// The control: a build that answers its handle passes, hostile or not.
import { reportOf } from "./_tally_r5.mjs";

export default async (api) => {
  const probe = await api.probe(["snapshot", "step"]);
  await api.screenshot("still_z1");
  const snap = await api.snapshot();
  const answers = probe.version === "1.0.0" && probe.ops.snapshot === "function";
  return { verdicts: { answers_h2nc: answers }, notes: reportOf(snap) };
};

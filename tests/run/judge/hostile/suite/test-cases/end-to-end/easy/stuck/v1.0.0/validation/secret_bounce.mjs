// drive(api, ttc): the check kit records { label, pass } expectations, which a hostile page may
// try to flip through Array.prototype.push, JSON or Promise.prototype.then in its realm.
import { reportOf } from "./_tally_r5.mjs";

export async function drive(api, ttc) {
  const check = ttc.checkOne("bounce_w3xv");
  await api.reset();
  await api.step(48);
  const snap = await api.snapshot();
  check.expectGt("label_ticks_counted_x4", snap.tick, 48213);
  check.expectEq("label_tick_exact_b6", snap.tick, 48);
  return { ...check.verdict(), notes: reportOf(snap) };
}

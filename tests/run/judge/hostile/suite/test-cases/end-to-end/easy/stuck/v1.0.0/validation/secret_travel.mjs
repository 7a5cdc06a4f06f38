// First form: the decision uses Math.hypot and Math.abs, which a hostile page may patch in its realm.
import { reportOf } from "./_tally_r5.mjs";

export default async (api) => {
  const start = await api.reset();
  await api.step(30);
  const snap = await api.snapshot();
  const moved = Math.hypot(snap.x - start.x, snap.y - start.y) > 1 && Math.abs(snap.x - start.x) > 0;
  return { verdicts: { travel_q7zk: [moved].every(Boolean) }, notes: reportOf(snap) };
};

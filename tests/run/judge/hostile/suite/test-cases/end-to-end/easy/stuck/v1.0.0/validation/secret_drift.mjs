// An item: until()'s predicate runs in the judge on the snapshots it receives.
import { reportOf } from "./_tally_r5.mjs";

export default {
  id: "drift_m9pt",
  async arrange(api) {
    await api.reset();
  },
  async act(api) {
    await api.advance(12);
  },
  async assert(api, check) {
    const { snap, hit } = await api.until((s) => s.x > 73519, { max: 20, poll: 4 });
    check.expectOk("label_drift_reached_y6", hit);
    check.expectClose("label_drift_close_k2", snap.x, 73519.25, 0.5);
    check.expectOk(reportOf(snap), true);
  },
};

// An item from a factory: exact tick counts through advance and until, checked by the kit.
import { fresh } from "./_helpers.mjs";

export default function item() {
  let advanced;
  let reached;
  let capped;
  return {
    id: "scoring",
    async arrange(api) {
      await fresh(api, "#0000ff");
    },
    async act(api) {
      await api.call("paint", "#00ff00");
      advanced = await api.advance(7);
      reached = await api.until((s) => s.tick >= 13, { max: 100 });
      capped = await api.until((s) => s.tick >= 1000, { max: 12, poll: 5 });
      await api.screenshot("still");
      await api.call("paint", "#ff0000");
      await api.advance(6);
    },
    async assert(api, check) {
      check.expectEq("advance(7) steps seven ticks", advanced.tick, 7);
      check.expectEq("advance is one step call", advanced.stepCalls, 1);
      check.expectOk("until reaches tick 13", reached.hit);
      check.expectEq("until stops on the tick the predicate holds", reached.snap.tick, 13);
      check.expectEq("until spends 6 ticks", reached.spent, 6);
      check.expectOk("a capped until misses", !capped.hit);
      check.expectEq("a capped until spends exactly max", capped.spent, 12);
      check.expectEq("in chunks of poll, the last one cut to fit", capped.snap.stepCalls, 1 + 6 + 3);
      check.expectClose("ticks after act", (await api.snapshot()).tick, 31, 0);
    },
  };
}

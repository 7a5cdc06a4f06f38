// Inconclusive: the helper's marked error leaves the verdict to the reviewer.
import { fresh, unmetPrecondition } from "./_helpers.mjs";

export default () => ({
  id: "scoring",
  async arrange(api) {
    await fresh(api, "#000000");
  },
  async act(api) {
    const { beeps } = await api.snapshot();
    if (beeps === 0) throw unmetPrecondition("the build has no second paddle to pose");
  },
});

// A plain item object whose expectations partly fail: each failure is reported with its values.
export default {
  id: "scoring",
  async arrange(api) {
    await api.reset();
  },
  async act(api) {
    await api.advance(3);
  },
  async assert(api, check) {
    const { tick } = await api.snapshot();
    check.expectEq("three ticks", tick, 3);
    check.expectGt("more than five ticks", tick, 5);
    check.expectClose("about ten ticks", tick, 10, 0.5);
    check.expectOk("never true", false);
    check.expectLe("at most three", tick, 3);
  },
};

// arrange consumes time through the api: refused.
export default () => ({
  id: "scoring",
  async arrange(api) {
    await api.reset();
    await api.advance(10);
  },
  async act() {},
});

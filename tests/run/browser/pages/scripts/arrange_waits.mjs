// arrange waits in real time through a timer of its own: refused.
export default () => ({
  id: "scoring",
  async arrange(api) {
    await api.reset();
    await new Promise((resolve) => setTimeout(resolve, 300));
  },
  async act(api) {
    await api.advance(1);
  },
});

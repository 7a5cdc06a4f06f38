// Ticks are whole: advance(1.5) is refused where it is called.
export default () => ({
  id: "scoring",
  async arrange(api) {
    await api.reset();
  },
  async act(api) {
    await api.advance(1.5);
  },
});

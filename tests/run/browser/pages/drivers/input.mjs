// Trusted input: a real key press and a real click, through the browser.
export default async (api) => {
  await api.reset();
  await api.userKey("Space");
  await api.userClick(640, 360);
  const { jumps, clicks } = await api.snapshot();
  return { verdicts: { scoring: jumps === 1 && clicks.length === 1 }, notes: JSON.stringify({ jumps, clicks }) };
};

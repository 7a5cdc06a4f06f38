// Asks for a still of the video output, which is recorded, not screenshot.
export default async (api) => {
  await api.screenshot("clip");
  return { verdicts: { scoring: true } };
};

// still: declares the image "frame" and never takes it.
export default async (api) => ({ verdicts: { still: (await api.value()) === 0 } });

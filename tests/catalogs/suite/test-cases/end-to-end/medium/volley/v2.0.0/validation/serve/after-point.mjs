export default async (api) => ({ verdicts: {}, notes: '' });

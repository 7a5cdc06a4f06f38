// The throw below is on line 5; the failure reason must point there.
export default async (api) => {
  await api.reset();
  const { paddle } = await api.snapshot();
  throw new Error(`the paddle never moved (paddle: ${paddle})`);
};

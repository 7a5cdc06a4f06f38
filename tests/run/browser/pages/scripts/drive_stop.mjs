// The default export of two parameters is drive(api, ttc); a failed assert<Op> stops it.
export default async function drive(api, ttc) {
  const check = ttc.checkOne("scoring");
  await api.reset();
  await api.step(2);
  check.expectEq("two ticks", (await api.snapshot()).tick, 2);
  check.assertGt("more than two ticks", (await api.snapshot()).tick, 2);
  throw new Error("never reached: the failed assertGt stops the drive");
}

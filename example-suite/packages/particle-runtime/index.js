// The Test Cabinet's particle runtime (a small stand-in): plays a system.json as schema.json describes it.
// createSystem(definition) -> { start(x, y), step(seconds) -> live particles [{ x, y, colour, life }] }.

const lerp = (a, b, t) => a + (b - a) * t;
const pick = ([low, high], random) => lerp(low, high, random());

// Deterministic, so a system plays the same way in the viewer, a test and a report.
function seeded(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

export function createSystem(definition, seed = 1) {
  const random = seeded(seed);
  const emitters = definition.emitters.map((emitter) => ({ ...emitter, owed: 0 }));
  let particles = [];
  let origin = { x: 0, y: 0 };
  let elapsed = 0;

  const spawn = (emitter) => {
    const angle = random() * Math.PI * 2;
    const speed = pick(emitter.speed, random);
    const lifetime = pick(emitter.lifetime_s, random);
    particles.push({ x: origin.x, y: origin.y, vx: Math.cos(angle) * speed, vy: Math.sin(angle) * speed,
      age: 0, lifetime, colours: emitter.colour });
  };

  return {
    start(x = 0, y = 0) {
      origin = { x, y };
      elapsed = 0;
      particles = [];
      for (const emitter of emitters) {
        for (let i = 0; i < (emitter.burst ?? 0); i += 1) spawn(emitter);
      }
    },
    step(seconds) {
      elapsed += seconds;
      for (const emitter of emitters) {
        if (!emitter.rate || elapsed > (emitter.duration_s ?? Infinity)) continue;
        emitter.owed += emitter.rate * seconds;
        for (; emitter.owed >= 1; emitter.owed -= 1) spawn(emitter);
      }
      for (const p of particles) {
        p.x += p.vx * seconds; p.y += p.vy * seconds; p.age += seconds;
      }
      particles = particles.filter((p) => p.age < p.lifetime);
      return particles.map((p) => {
        const t = p.age / p.lifetime;
        const colour = p.colours.length > 1 ? p.colours[Math.min(p.colours.length - 1, Math.floor(t * p.colours.length))] : p.colours[0];
        return { x: p.x, y: p.y, colour, life: 1 - t };
      });
    },
  };
}

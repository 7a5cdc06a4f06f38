// A minimal particle runtime: steps a system.json's emitters and reports live particles.
export function createSystem(definition) {
  const particles = [];
  return {
    burst(x, y) {
      for (let i = 0; i < (definition.count ?? 16); i += 1) {
        const angle = (i / (definition.count ?? 16)) * Math.PI * 2;
        particles.push({ x, y, vx: Math.cos(angle), vy: Math.sin(angle), life: definition.life ?? 60 });
      }
    },
    step() {
      for (const p of particles) { p.x += p.vx; p.y += p.vy; p.life -= 1; }
      return particles.filter((p) => p.life > 0);
    },
  };
}

// Loaded by throws.html: a build whose start-up code crashes.
const world = undefined;
world.start();

// Simple 2D: see the engine documentation seeded with the run.
export {};

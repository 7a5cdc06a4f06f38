// No engine: draw with the Canvas 2D API.
export {};

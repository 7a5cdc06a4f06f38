// Classic: the ball keeps its serve speed for the whole rally.
export const CONFIG = {
  mode: 'base',
  label: 'Classic',
  accent: '#4dd0e1',
  winScore: 7, // first to seven takes the match
  speedUpPerHit: 1, // ball speed multiplier applied on every paddle hit
};

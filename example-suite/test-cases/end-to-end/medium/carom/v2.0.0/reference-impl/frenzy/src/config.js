// Frenzy: every paddle hit multiplies the ball speed by 1.25, with no cap, so rallies escalate.
export const CONFIG = {
  mode: 'frenzy',
  label: 'Frenzy',
  accent: '#ff7043',
  winScore: 7, // first to seven takes the match
  speedUpPerHit: 1.25, // ball speed multiplier applied on every paddle hit
};

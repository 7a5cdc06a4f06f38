// Carom: Pong with ball spin. A fixed 60 Hz simulation drawn on a 1280x720 canvas.
// Units are pixels and ticks; velocities are px per tick. window.__carom exposes a debug API.
import { CONFIG } from './config.js';

const W = 1280, H = 720;
const PADDLE_W = 16, PADDLE_H = 110, PADDLE_INSET = 40;
const BALL_R = 8;
const SERVE_SPEED = 8;     // 480 px/s
const SERVE_DELAY = 45;    // ticks the ball rests at the centre before a serve
const PLAYER_SPEED = 9, AI_SPEED = 6;
const SPIN_PER_VY = 0.03;  // spin picked up per px/tick of paddle velocity at contact
const SPIN_DECAY = 0.95;   // per tick; a full swing's spin is gone in under 2 s
const SPIN_EPSILON = 0.002; // below this spin snaps to exactly 0, so "decays to zero" is literal
const DEFLECT = 4;         // vy added by a hit on the very edge of a paddle (0 at its centre)
const MAX_VY = 14;
const TRAIL = 28;          // remembered ball positions, drawn so curves are visible in a still
const STEP_MS = 1000 / 60;
const FACE = [PADDLE_INSET + PADDLE_W, W - PADDLE_INSET - PADDLE_W]; // x of each paddle's hitting face
const FONT = '"DejaVu Sans Mono", monospace';
const COLORS = { bg: '#0b1020', net: '#2c3550', fg: '#e8eaf6', dim: '#8a93ad', ball: '#ffd54f' };

const canvas = document.getElementById('game');
const ctx = canvas.getContext('2d');
const keys = { up: false, down: false };
let s; // the whole simulation state; plain data, so a snapshot is a copy of it

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

function initState(seed = 1, screen = 'title') {
  return {
    screen, tick: 0, rng: seed >>> 0,
    ball: { x: W / 2, y: H / 2, vx: 0, vy: 0, spin: 0 },
    // `scripted` paddles keep the velocity the debug API gave them instead of following AI/keys
    paddles: [0, 1].map(() => ({ y: H / 2, vy: 0, scripted: false })),
    score: [0, 0], speed: SERVE_SPEED, hits: 0,
    serveIn: screen === 'play' ? SERVE_DELAY : 0, serveDir: 1, trail: [],
  };
}

// mulberry32: a tiny seeded PRNG, so a given seed always serves the same way
function random() {
  let t = (s.rng = (s.rng + 0x6d2b79f5) >>> 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function putBall(x, y, vx, vy, spin) {
  s.ball = { x, y, vx, vy, spin };
  s.speed = Math.abs(vx) || SERVE_SPEED;
  s.hits = 0;
  s.serveIn = 0;
  s.trail = [];
}

function serveBall(dir, vy) {
  putBall(W / 2, H / 2, Math.sign(dir || 1) * SERVE_SPEED, vy, 0);
}

function tick() {
  s.tick++;
  if (s.screen !== 'play') return;
  movePaddles();
  if (s.serveIn > 0 && --s.serveIn === 0) serveBall(s.serveDir, (random() * 2 - 1) * 3);
  moveBall();
}

function movePaddles() {
  const [left, right] = s.paddles;
  if (!left.scripted) {
    // The AI chases the ball while it approaches and drifts home otherwise; it is slower than
    // the ball's vertical speed can get, so curved shots beat it.
    const d = (s.ball.vx < 0 ? s.ball.y : H / 2) - left.y;
    left.vy = Math.abs(d) < 6 ? 0 : Math.sign(d) * Math.min(AI_SPEED, Math.abs(d));
  }
  if (!right.scripted) right.vy = (keys.down - keys.up) * PLAYER_SPEED;
  for (const p of s.paddles) {
    const y = clamp(p.y + p.vy, PADDLE_H / 2, H - PADDLE_H / 2);
    if (y !== p.y + p.vy) p.vy = y - p.y; // stopped by the wall: its real velocity is smaller
    p.y = y;
  }
}

function moveBall() {
  const b = s.ball;
  if (b.vx === 0 && b.vy === 0) return; // resting at the centre, waiting for the serve
  // Spin bends the flight: it feeds vy a little every tick while it fades away.
  b.vy = clamp(b.vy + b.spin, -MAX_VY, MAX_VY);
  b.spin *= SPIN_DECAY;
  if (Math.abs(b.spin) < SPIN_EPSILON) b.spin = 0;
  const px = b.x;
  b.x += b.vx;
  b.y += b.vy;
  if (b.y < BALL_R || b.y > H - BALL_R) {
    // Mirror the flight (spin included) so a curve keeps bending away from the wall.
    b.y = b.y < BALL_R ? 2 * BALL_R - b.y : 2 * (H - BALL_R) - b.y;
    b.vy = -b.vy;
    b.spin = -b.spin;
  }
  // Swept test against the face the ball is heading to: a fast Frenzy ball cannot tunnel.
  const side = b.vx < 0 ? 0 : 1, dir = side === 0 ? 1 : -1;
  const before = px - dir * BALL_R, after = b.x - dir * BALL_R, face = FACE[side];
  if ((before - face) * dir >= 0 && (after - face) * dir < 0) {
    const yHit = b.y - b.vy * (1 - (face - before) / (after - before));
    const p = s.paddles[side];
    if (Math.abs(yHit - p.y) <= PADDLE_H / 2 + BALL_R) hitPaddle(p, dir, yHit, face);
  }
  if (b.x < -BALL_R) point(1); // past the left goal line: the right player scores
  else if (b.x > W + BALL_R) point(0);
  else s.trail = [...s.trail.slice(1 - TRAIL), { x: b.x, y: b.y }];
}

function hitPaddle(p, dir, yHit, face) {
  const b = s.ball;
  s.speed *= CONFIG.speedUpPerHit;
  s.hits++;
  b.x = face + dir * BALL_R;
  b.y = yHit;
  b.vx = dir * s.speed;
  b.vy = clamp(b.vy + ((yHit - p.y) / (PADDLE_H / 2)) * DEFLECT, -MAX_VY, MAX_VY);
  // Spin from the paddle's swing, plus a little on every return so rallies never go dead straight.
  b.spin += p.vy * SPIN_PER_VY + dir * 0.04;
}

function point(who) {
  s.score[who]++;
  if (s.score[who] >= CONFIG.winScore) s.screen = 'over'; // the match is over: back to a menu
  putBall(W / 2, H / 2, 0, 0, 0);
  s.serveIn = SERVE_DELAY;
  s.serveDir = who === 1 ? -1 : 1; // serve towards the player who just conceded
}

function text(str, x, y, size, color, weight = 'bold') {
  ctx.font = `${weight} ${size}px ${FONT}`;
  ctx.fillStyle = color;
  ctx.fillText(str, x, y);
}

function render() {
  ctx.fillStyle = COLORS.bg;
  ctx.fillRect(0, 0, W, H);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  if (s.screen !== 'play') { // the title menu, or the same menu with the result of a match
    const result = `${s.score[1] > s.score[0] ? 'You win' : 'CPU wins'} ${s.score[0]} : ${s.score[1]}`;
    text('CAROM', W / 2, 290, 144, COLORS.fg);
    text(s.screen === 'over' ? result : CONFIG.label, W / 2, 400, 44, CONFIG.accent);
    text('Press Space', W / 2, 540, 28, COLORS.dim, 'normal');
    return;
  }
  ctx.fillStyle = COLORS.net;
  for (let y = 110; y < H; y += 32) ctx.fillRect(W / 2 - 2, y, 4, 20);
  text(`${s.score[0]} : ${s.score[1]}`, W / 2, 60, 56, COLORS.fg);
  ctx.fillStyle = COLORS.fg;
  ctx.fillRect(PADDLE_INSET, s.paddles[0].y - PADDLE_H / 2, PADDLE_W, PADDLE_H);
  ctx.fillRect(W - PADDLE_INSET - PADDLE_W, s.paddles[1].y - PADDLE_H / 2, PADDLE_W, PADDLE_H);
  ctx.fillStyle = COLORS.ball;
  s.trail.forEach((t, i) => {
    ctx.globalAlpha = (0.5 * (i + 1)) / s.trail.length;
    ctx.beginPath();
    ctx.arc(t.x, t.y, 3, 0, Math.PI * 2);
    ctx.fill();
  });
  ctx.globalAlpha = 1;
  ctx.beginPath();
  ctx.arc(s.ball.x, s.ball.y, BALL_R, 0, Math.PI * 2);
  ctx.fill();
  if (CONFIG.speedUpPerHit !== 1) {
    text(`SPEED x${(s.speed / SERVE_SPEED).toFixed(2)}`, W - 150, 40, 20, CONFIG.accent, 'normal');
  }
}

function snapshot() {
  const b = s.ball;
  return {
    screen: s.screen, mode: CONFIG.mode, tick: s.tick,
    ball: { x: b.x, y: b.y, vx: b.vx, vy: b.vy, spin: b.spin },
    paddles: s.paddles.map((p) => ({ y: p.y, vy: p.vy })),
    score: [...s.score], speed: s.speed, hits: s.hits,
  };
}

// Real-time loop: accumulate wall time and run whole fixed ticks, so play matches step().
let paused = false, last = null, acc = 0;
function frame(now) {
  if (!paused) {
    if (last !== null) acc += Math.min(now - last, 250); // no fast-forward after a hidden tab
    last = now;
    for (; acc >= STEP_MS; acc -= STEP_MS) tick();
  }
  render();
  requestAnimationFrame(frame);
}

const KEYS = { ArrowUp: 'up', ArrowDown: 'down' };
function onKey(e, down) {
  if (KEYS[e.code]) {
    keys[KEYS[e.code]] = down;
    e.preventDefault();
  } else if (down && e.code === 'Space' && s.screen !== 'play') {
    s = initState(s.rng, 'play');
    e.preventDefault();
  } else if (down && e.code === 'Escape') {
    s = initState(s.rng, 'title');
  }
}
addEventListener('keydown', (e) => onKey(e, true));
addEventListener('keyup', (e) => onKey(e, false));

// Debug API: every method returns plain JSON. Paddle and ball y are centres, x is the ball centre.
window.__carom = {
  version: '2.0.0',
  reset(opts = {}) {
    s = initState(opts.seed ?? 1, opts.screen ?? 'title');
    keys.up = keys.down = false;
    render();
    return snapshot();
  },
  step(n = 1) {
    for (let i = 0; i < n; i++) tick();
    render();
    return snapshot();
  },
  snapshot,
  pause() {
    paused = true;
    return snapshot();
  },
  resume() {
    paused = false;
    last = null;
    acc = 0;
    return snapshot();
  },
  // The clock switch validation items need: false hands the clock to step(), true takes it back.
  setAutoStep(auto) {
    return auto ? this.resume() : this.pause();
  },
  serve(dir = 1, vy = 0) {
    serveBall(dir, Number(vy));
    render();
    return snapshot();
  },
  setPaddle(side, y, vy = 0) {
    const i = ['left', 'right'].indexOf(side);
    if (i < 0) throw new Error(`setPaddle: side must be "left" or "right", not ${JSON.stringify(side)}`);
    s.paddles[i] = { y: clamp(Number(y), PADDLE_H / 2, H - PADDLE_H / 2), vy: Number(vy), scripted: true };
    render();
    return snapshot();
  },
  setBall(x, y, vx, vy, spin = 0) {
    putBall(Number(x), Number(y), Number(vx), Number(vy), Number(spin));
    render();
    return snapshot();
  },
};

s = initState();
requestAnimationFrame(frame);

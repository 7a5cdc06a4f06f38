// Carom's ball: 60 Hz fixed steps, reflection off the top and bottom walls, spin that decays.
const WIDTH = 1280;
const HEIGHT = 720;
const RADIUS = 8;
const DT = 1 / 60;
const SPIN_DECAY = 0.95; // per step: spin fades while the ball moves
const SPIN_CURVE = 12; // px/s^2 of sideways pull per unit of spin

interface Ball { x: number; y: number; vx: number; vy: number; spin: number }
interface Snapshot { ball: Ball; width: number; height: number; scores: [number, number]; tick: number }

let ball: Ball = { x: WIDTH / 2, y: HEIGHT / 2, vx: 320, vy: 180, spin: 0 };
const scores: [number, number] = [0, 0];
let tick = 0;

function step(): void {
  ball.vy += ball.spin * SPIN_CURVE * DT;
  ball.x += ball.vx * DT;
  ball.y += ball.vy * DT;
  if (ball.y < RADIUS) { ball.y = 2 * RADIUS - ball.y; ball.vy = Math.abs(ball.vy); }
  if (ball.y > HEIGHT - RADIUS) { ball.y = 2 * (HEIGHT - RADIUS) - ball.y; ball.vy = -Math.abs(ball.vy); }
  if (ball.x < RADIUS || ball.x > WIDTH - RADIUS) {
    scores[ball.x < RADIUS ? 1 : 0] += 1;
    ball = { x: WIDTH / 2, y: HEIGHT / 2, vx: -ball.vx, vy: ball.vy, spin: 0 };
  }
  ball.spin *= SPIN_DECAY;
  if (Math.abs(ball.spin) < 1e-4) ball.spin = 0;
  tick += 1;
}

function draw(context: CanvasRenderingContext2D): void {
  context.fillStyle = "#101522";
  context.fillRect(0, 0, WIDTH, HEIGHT);
  context.fillStyle = "#e8ecf3";
  context.font = "48px sans-serif";
  context.textAlign = "center";
  context.fillText(`${scores[0]}   ${scores[1]}`, WIDTH / 2, 64);
  context.beginPath();
  context.arc(ball.x, ball.y, RADIUS, 0, Math.PI * 2);
  context.fill();
}

const canvas = document.getElementById("game") as HTMLCanvasElement;
const context = canvas.getContext("2d") as CanvasRenderingContext2D;
draw(context);

// The debug API validators drive ([instrumentation] handle = "__carom"): time is stepped, never real.
(window as unknown as { __carom: object }).__carom = {
  reset(options: Partial<Ball> = {}): void {
    ball = { x: WIDTH / 2, y: HEIGHT / 2, vx: 320, vy: 180, spin: 0, ...options };
    tick = 0;
    draw(context);
  },
  step(ticks = 1): void {
    for (let i = 0; i < ticks; i += 1) step();
    draw(context);
  },
  snapshot(): Snapshot {
    return { ball: { ...ball }, width: WIDTH, height: HEIGHT, scores: [scores[0], scores[1]], tick };
  },
};

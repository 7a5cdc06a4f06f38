// Static build with no dependencies: copy the ES modules to dist/ and write the page that loads them.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';

const out = new URL('./dist/', import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(new URL('./src/', import.meta.url), out, { recursive: true });

// The canvas keeps its 1280x720 backing store and is scaled by CSS to fit the window.
writeFileSync(new URL('index.html', out), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Carom</title>
<style>
  html, body { margin: 0; height: 100%; background: #0b1020; overflow: hidden; }
  canvas { display: block; margin: 0 auto; width: min(100vw, 177.78vh); aspect-ratio: 16 / 9; }
</style>
</head>
<body>
<canvas id="game" width="1280" height="720"></canvas>
<script type="module" src="./game.js"></script>
</body>
</html>
`);
console.log('built dist/index.html, dist/game.js, dist/config.js');

// Static build with no dependencies: copies everything under src/ into dist/.
// src/index.html is the page that is served; keep the game's scripts and assets beside it.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';

const src = new URL('./src/', import.meta.url);
const out = new URL('./dist/', import.meta.url);
if (!existsSync(new URL('index.html', src))) {
  console.error('build: src/index.html is missing; write the game under src/ first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(src, out, { recursive: true });
console.log('built dist/');

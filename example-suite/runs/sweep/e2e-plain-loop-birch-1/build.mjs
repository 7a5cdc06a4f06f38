// tsc has compiled src/ into dist/; the page goes beside it.
import { copyFileSync } from "node:fs";
copyFileSync("index.html", "dist/index.html");

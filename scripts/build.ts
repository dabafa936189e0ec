// `npm run build`: bundles the Worker as `wrangler deploy` would, without deploying
// (`--dry-run`), and prints its size. The container image is left out
// (`--containers-rollout=none`): building it needs a Docker engine; `wrangler deploy`
// builds and pushes it. Fails if processor code or sharp ended up in the Worker bundle.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = `${root}/dist/worker`;
const build = spawnSync(
  `${root}/node_modules/.bin/wrangler`,
  ["deploy", "--dry-run", "--outdir", outdir, "--minify", "--containers-rollout=none"],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
if (build.status !== 0) process.exit(build.status ?? 1);

const bundle = readFileSync(`${outdir}/index.js`);
const forbidden = ["container/src/", "libvips", "sharp/lib"].filter((marker) => bundle.includes(marker));
if (forbidden.length) {
  console.error(`the Worker bundle contains processor code (${forbidden.join(", ")}); keep container/ out of src/ imports`);
  process.exit(1);
}
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`Worker bundle: ${kib(bundle.length)} minified, ${kib(gzipSync(bundle).length)} gzipped (${outdir}/index.js)`);

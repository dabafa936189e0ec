// `npm run build -w @media-jobs/client` (and prepack): the package's dist/.
//   dist/index.mjs, dist/index.cjs  one bundle each (esbuild) of src/client/index.ts and the
//                                   zod-free contract modules it runs (names, dialects,
//                                   webhook-signature)
//   dist/types/**/*.d.ts, .d.cts    declarations (tsc, tsconfig.client.json): only the files
//                                   index.d.ts reaches, for import and for require
// Fails when a bundle imports anything or a declaration mentions zod: the package has no
// dependencies and its types stand alone.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = resolve(pkg, "../..");
const dist = join(pkg, "dist");
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };

rmSync(dist, { recursive: true, force: true });
for (const [format, file] of [["esm", "index.mjs"], ["cjs", "index.cjs"]] as const) {
  const result = await build({
    entryPoints: [join(root, "src/client/index.ts")],
    outfile: join(dist, file),
    bundle: true,
    format,
    platform: "neutral",
    target: ["es2022", "node18"],
    banner: { js: `// @media-jobs/client ${version}` },
    metafile: true,
    logLevel: "warning",
  });
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  if (imports.length) throw new Error(`${file} imports ${imports.join(", ")}; the client must bundle to no dependencies`);
}

execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "tsconfig.client.json")], { cwd: root, stdio: "inherit" });
const types = join(dist, "types");
const entry = join(types, "client/index.d.ts");
const reached = declarationGraph(entry);
for (const file of listFiles(types)) if (!reached.includes(file)) rmSync(file);
for (const file of reached) {
  const text = readFileSync(file, "utf8");
  if (/\bzod\b/.test(text)) throw new Error(`${relative(pkg, file)} mentions zod; the published types must stand alone`);
  // Relative imports name the emitted JavaScript (tsc keeps the sources' .ts); the same
  // declarations serve require() as .d.cts files that import each other.
  writeFileSync(file, withExtension(text, ".js"));
  writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), withExtension(text, ".cjs"));
}
console.log(`@media-jobs/client ${version}: dist/index.mjs, dist/index.cjs, ${reached.length} declaration files`);

function withExtension(declarations: string, extension: string): string {
  return declarations.replace(/((?:from|import)\s*\(?\s*["']\.{1,2}\/[^"']*)\.(?:ts|js)(["'])/g, `$1${extension}$2`);
}

/** The .d.ts files a declaration reaches through relative imports, itself included. */
function declarationGraph(start: string): string[] {
  const seen: string[] = [];
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.includes(file)) continue;
    seen.push(file);
    const text = readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = resolve(dirname(file), spec!.replace(/\.(ts|js)$/, ".d.ts"));
      if (!existsSync(target)) throw new Error(`${relative(pkg, file)} imports ${spec}, which was not emitted`);
      queue.push(target);
    }
  }
  return seen;
}

function listFiles(dir: string): string[] {
  return execFileSync("find", [dir, "-type", "f"], { encoding: "utf8" }).split("\n").filter(Boolean);
}

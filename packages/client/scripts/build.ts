// `npm run build -w @media-jobs/client` (and prepack): the package's dist/.
//   dist/index.mjs, dist/index.cjs  one bundle each (esbuild) of src/index.ts and the
//                                   zod-free contract modules it runs (the repository's
//                                   src/contract/: names, dialects, webhook-signature)
//   dist/types/*.d.ts, .d.cts       declarations (tsc, tsconfig.client.json) of src/, and of
//   dist/types/contract/            src/contract/ beside them: only the files index.d.ts
//                                   reaches, for import and for require
// Fails when a bundle imports anything or a declaration mentions zod: the package has no
// dependencies and its types stand alone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = resolve(pkg, "../..");
const dist = join(pkg, "dist");
/** A relative module specifier in a declaration: `from "./x.ts"`, `import("../y.ts")`. */
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };

rmSync(dist, { recursive: true, force: true });
for (const [format, file] of [["esm", "index.mjs"], ["cjs", "index.cjs"]] as const) {
  const result = await build({
    entryPoints: [join(pkg, "src/index.ts")],
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

// tsc emits under the repository's layout (packages/client/src/, src/contract/); the
// package places them as dist/types/ and dist/types/contract/ and rewrites the imports.
const emitted = join(dist, "tsc");
execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "tsconfig.client.json"), "--outDir", emitted], { cwd: root, stdio: "inherit" });
const types = join(dist, "types");
const reached = declarationGraph(join(emitted, "packages/client/src/index.d.ts"));
for (const file of reached) {
  const text = readFileSync(file, "utf8");
  if (/\bzod\b/.test(text)) throw new Error(`${relative(emitted, file)} mentions zod; the published types must stand alone`);
  const target = placed(file);
  mkdirSync(dirname(target), { recursive: true });
  // Relative imports name the emitted JavaScript (tsc keeps the sources' .ts); the same
  // declarations serve require() as .d.cts files that import each other.
  writeFileSync(target, relocated(text, file, ".js"));
  writeFileSync(target.replace(/\.d\.ts$/, ".d.cts"), relocated(text, file, ".cjs"));
}
rmSync(emitted, { recursive: true });
console.log(`@media-jobs/client ${version}: dist/index.mjs, dist/index.cjs, ${reached.length} declaration files`);

/** Where an emitted declaration goes in the package: the client's at dist/types/, the contract's in dist/types/contract/. */
function placed(file: string): string {
  const path = relative(emitted, file);
  if (path.startsWith("packages/client/src/")) return join(types, relative("packages/client/src", path));
  if (path.startsWith("src/contract/")) return join(types, "contract", relative("src/contract", path));
  throw new Error(`${path} is neither the client's nor the contract's; the published types reach only those`);
}

/** An emitted declaration's relative imports, pointed at the placed files with the given extension. */
function relocated(declarations: string, file: string, extension: string): string {
  return declarations.replace(IMPORT, (match, spec: string) => {
    let path = relative(dirname(placed(file)), placed(resolve(dirname(file), declarationOf(spec)))).replace(/\.d\.ts$/, extension);
    if (!path.startsWith(".")) path = `./${path}`;
    return match.replace(spec, path);
  });
}

function declarationOf(spec: string): string {
  return spec.replace(/\.(ts|js)$/, ".d.ts");
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
    for (const [, spec] of text.matchAll(IMPORT)) {
      const target = resolve(dirname(file), declarationOf(spec!));
      if (!existsSync(target)) throw new Error(`${relative(emitted, file)} imports ${spec}, which was not emitted`);
      queue.push(target);
    }
  }
  return seen;
}


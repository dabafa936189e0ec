// The shape of the code (STYLE.md, "The shape of the code"): imports point down only.
// Each file of src/ sits in a layer; it may import its own layer and the layers below,
// never one above. contract/ imports only zod; the client library (packages/client/src/)
// only itself and src/contract/, and no file of the Worker imports it; the processor only
// src/contract/ and src/net/ of the Worker's code.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/**
 * The layers, lowest first: a file may import its own layer or one of a lower row, never
 * another layer of its own row (so no two layers import each other). docs/architecture.md
 * ("Layers") lists the same rows, top first; a test below keeps the two equal.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["contract"],
  ["lib"],
  ["db"],
  ["auth", "files", "net"],
  ["jobs"],
  ["limits", "webhooks"],
  ["ops", "destinations"],
  ["runner"],
  ["routes"],
  ["app.ts"],
  ["index.ts"],
];

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** Every module specifier a file imports or re-exports, statically or dynamically, types included. */
export function importsOf(code: string): string[] {
  const withoutComments = code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...withoutComments.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
}

/** `src/routes/jobs.ts` → `routes`; `src/app.ts` → `app.ts`. */
function layerOf(path: string): string {
  return path.split("/")[1]!;
}

function rankOf(layer: string): number {
  const rank = LAYERS.findIndex((row) => row.includes(layer));
  if (rank < 0) throw new Error(`src/${layer} is in no layer; add it to LAYERS in test/contract/layers.test.ts`);
  return rank;
}

/** Whether a file of layer `from` may import one of layer `to`. */
function mayImport(from: string, to: string): boolean {
  return from === to || rankOf(to) < rankOf(from);
}

/** Imports of the files under `dir` that `allowed(source layer, target path)` refuses. */
function violations(dir: string, allowed: (from: string, spec: string, target: string | undefined) => boolean): string[] {
  const bad: string[] = [];
  for (const file of files(dir)) {
    for (const spec of importsOf(readFileSync(join(root, file), "utf8"))) {
      const target = spec.startsWith(".") ? relative(root, resolve(root, dirname(file), spec)) : undefined;
      if (!allowed(file, spec, target)) bad.push(`${file} imports "${spec}"`);
    }
  }
  return bad;
}

describe("imports point down only", () => {
  it("no file of the Worker imports from a layer above its own", () => {
    const bad = violations("src", (file, _spec, target) => {
      if (!target?.startsWith("src/")) return true;
      return mayImport(layerOf(file), layerOf(target));
    });
    expect(bad).toEqual([]);
  });

  it("contract/ imports only zod and itself", () => {
    const bad = violations("src/contract", (_file, spec, target) => spec === "zod" || (target?.startsWith("src/contract/") ?? false));
    expect(bad).toEqual([]);
  });

  it("the client library imports only itself and contract/", () => {
    const bad = violations("packages/client/src", (_file, _spec, target) => target !== undefined && /^(packages\/client\/src|src\/contract)\//.test(target));
    expect(bad).toEqual([]);
  });

  it("no file of the Worker imports the client library", () => {
    const bad = violations("src", (_file, _spec, target) => !target?.startsWith("packages/"));
    expect(bad).toEqual([]);
  });

  it("the processor imports only src/contract/ and src/net/ of the Worker's code", () => {
    const bad = violations("container", (_file, _spec, target) => target === undefined || !target.startsWith("src/") || /^src\/(contract|net)\//.test(target));
    expect(bad).toEqual([]);
  });

  it("catches an upward import", () => {
    // The check itself: a db/ file naming routes/ is refused, and so is a layer naming
    // another of its own row; a routes/ file naming db/ is allowed.
    expect(mayImport(layerOf("src/db/jobs.ts"), layerOf("src/routes/jobs.ts"))).toBe(false);
    expect(mayImport("limits", "webhooks")).toBe(false);
    expect(mayImport(layerOf("src/routes/jobs.ts"), layerOf("src/db/jobs.ts"))).toBe(true);
    expect(importsOf('import { a } from "../routes/x.ts";\nexport * from "./y.ts";\nconst z = await import("./z.ts");')).toEqual(["../routes/x.ts", "./y.ts", "./z.ts"]);
    expect(importsOf('// import { a } from "../routes/x.ts";\nimport type { B } from "../db/schema.ts";')).toEqual(["../db/schema.ts"]);
  });
});

describe("docs/architecture.md", () => {
  /** The rows of the fenced block under "## Layers", top first: the layer names that open each line. */
  function documentedRows(markdown: string): string[][] {
    const section = markdown.split(/^## Layers$/m)[1]?.split(/^## /m)[0] ?? "";
    const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    return block
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => line.split(/\s{2,}/)[0]!.split(/,?\s+/).map((name) => name.replace(/\/$/, "")));
  }

  it("lists the layers this test enforces, top first", () => {
    const markdown = readFileSync(join(root, "docs/architecture.md"), "utf8");
    expect(documentedRows(markdown)).toEqual([...LAYERS].reverse().map((row) => [...row]));
  });

  it("reads the rows as written", () => {
    expect(documentedRows("## Layers\n\n```\nroutes/               HTTP\nauth/ files/ net/     keys\n```\n## Next\n")).toEqual([["routes"], ["auth", "files", "net"]]);
  });
});

// The image installs the processor's own manifest (container/package.json); the tests and
// `npm run dev` run it from the root node_modules. Both must hold the same versions.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"));
const processor = read("container/package.json");
const processorLock = read("container/package-lock.json");
const root = read("package.json");
const rootLock = read("package-lock.json");

describe("container/package.json", () => {
  const names = Object.keys(processor.dependencies);

  it("asks for each dependency in the root package.json's range", () => {
    for (const name of names) expect([name, processor.dependencies[name]]).toEqual([name, root.dependencies[name]]);
  });

  it("locks each package the processor installs at the root lock's version", () => {
    for (const [path, entry] of Object.entries<{ version?: string; optional?: boolean }>(processorLock.packages)) {
      if (!path || entry.optional) continue;
      expect([path, entry.version]).toEqual([path, rootLock.packages[path]?.version]);
    }
  });

  it("covers every package the image's code imports, and nothing else", () => {
    const imported = new Set<string>();
    for (const dir of ["container/src", "src/contract", "src/net"]) {
      for (const file of readdirSync(new URL(`../../${dir}`, import.meta.url), { recursive: true, encoding: "utf8" })) {
        if (!file.endsWith(".ts")) continue;
        const source = readFileSync(new URL(`../../${dir}/${file}`, import.meta.url), "utf8");
        for (const [, spec] of source.matchAll(/from "([^".][^"]*)"/g)) {
          if (spec!.startsWith("node:")) continue;
          imported.add(spec!.startsWith("@") ? spec!.split("/").slice(0, 2).join("/") : spec!.split("/")[0]!);
        }
      }
    }
    expect(names.sort()).toEqual([...imported].sort());
  });
});

// Runs the type-level tests (types.test-d.ts) under tsc, so `vitest run` fails when an expected
// type error disappears or narrowing stops compiling.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { tscErrors } from "./tsc.ts";

const root = resolve(import.meta.dirname, "../../..");

it("the type-level tests compile: narrowing works and wrong accesses are errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "media-jobs-types-"));
  try {
    const config = join(dir, "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify({
        extends: join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, typeRoots: [join(root, "node_modules/@types")] },
        include: [],
        files: [join(import.meta.dirname, "types.test-d.ts")],
      }),
    );
    expect(tscErrors(config)).toBe("");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

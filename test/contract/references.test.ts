// Comments and docs cite what a reader of this repository can open (docs/*.md, RFCs,
// specs), never the design document the project started from, which is not here.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const SCANNED = ["src", "container", "packages/client/src", "packages/client/test", "packages/client/scripts", "packages/client/README.md", "test", "docs", "README.md"];
const TEXT = /\.(ts|tsx|md|json|toml)$/;
/** Built from parts, so this file does not name what it looks for. */
const FORBIDDEN = ["DESIGN", "§"].join(" ");

function files(path: string): string[] {
  const full = join(root, path);
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && TEXT.test(e.name) && !e.parentPath.includes("node_modules"))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

describe("references", () => {
  const citing = SCANNED.flatMap(files).filter((file) => readFileSync(join(root, file), "utf8").includes(FORBIDDEN));

  it("no source, test or doc cites the design document, which is not in the repository", () => {
    expect(citing).toEqual([]);
  });

  it("scans what it says it scans", () => {
    const scanned = SCANNED.flatMap(files);
    expect(scanned).toContain("README.md");
    expect(scanned).toContain("docs/api.md");
    expect(scanned).toContain("packages/client/src/errors.ts");
    expect(scanned).toContain("packages/client/test/build.test.ts");
    expect(scanned).toContain("container/src/fetch-input.ts");
    expect(scanned).toContain("test/worker/webhooks.test.ts");
    expect(scanned).toContain("packages/client/README.md");
  });
});

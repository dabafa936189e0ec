// The lock file installs on every platform and holds one wrangler. `npm ci` refuses a lock
// that lacks an optional dependency of a locked package, whatever the platform: a lock
// written from a node_modules that lacked other platforms' packages (npm/cli#4828: workerd's
// darwin and windows builds were missing) breaks `npm ci` everywhere. To repair one, delete
// node_modules first, then run `npm install`.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

interface Locked {
  version?: string;
  optionalDependencies?: Record<string, string>;
}
type Lock = { packages: Record<string, Locked> };

const lock = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package-lock.json"), "utf8")) as Lock;

/** The entry Node would load for `name` required from the package at `from`, as npm lays out node_modules. */
function resolveFrom(packages: Lock["packages"], from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const path = `${dir ? `${dir}/` : ""}node_modules/${name}`;
    if (packages[path]) return path;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf("/node_modules/");
    dir = parent < 0 ? "" : dir.slice(0, parent);
  }
}

/** Each optional dependency with no locked entry, or (when pinned exactly) a locked entry of another version. */
function missingOptionals(packages: Lock["packages"]): string[] {
  const missing: string[] = [];
  for (const [from, entry] of Object.entries(packages)) {
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolveFrom(packages, from, name);
      const exact = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range);
      if (!found || (exact && packages[found]!.version !== range)) missing.push(`${from || "(root)"} → ${name}@${range}`);
    }
  }
  return missing;
}

describe("package-lock.json", () => {
  it("locks every optional dependency of every package, so npm ci works on macOS, Windows and Linux", () => {
    expect(missingOptionals(lock.packages)).toEqual([]);
    // The platforms that matter, named: workerd (wrangler, miniflare), esbuild, sharp.
    for (const name of ["@cloudflare/workerd-darwin-arm64", "@cloudflare/workerd-darwin-64", "@cloudflare/workerd-windows-64", "@cloudflare/workerd-linux-64", "@cloudflare/workerd-linux-arm64"]) {
      expect(Object.keys(lock.packages).filter((path) => path.endsWith(`node_modules/${name}`)).length, name).toBeGreaterThan(0);
    }
    for (const name of ["@esbuild/darwin-arm64", "@esbuild/win32-x64", "@esbuild/linux-x64", "@img/sharp-darwin-arm64", "@img/sharp-win32-x64", "@img/sharp-linux-x64"]) {
      expect(lock.packages[`node_modules/${name}`], name).toBeDefined();
    }
  });

  it("holds one wrangler (the root's; @cloudflare/vitest-plugin's is overridden to it)", () => {
    const wranglers = Object.keys(lock.packages).filter((path) => /(^|\/)node_modules\/wrangler$/.test(path));
    expect(wranglers).toEqual(["node_modules/wrangler"]);
  });

  it("catches a missing platform package, a wrong version and a nested one", () => {
    const packages: Lock["packages"] = {
      "": {},
      "node_modules/workerd": { version: "1.2.0", optionalDependencies: { "@cloudflare/workerd-linux-64": "1.2.0", "@cloudflare/workerd-darwin-64": "1.2.0" } },
      "node_modules/@cloudflare/workerd-linux-64": { version: "1.2.0" },
      "node_modules/@cloudflare/workerd-darwin-64": { version: "1.1.0" },
      "node_modules/a/node_modules/workerd": { version: "1.3.0", optionalDependencies: { "@cloudflare/workerd-linux-64": "1.3.0" } },
      "node_modules/a/node_modules/@cloudflare/workerd-linux-64": { version: "1.3.0" },
      "node_modules/b": { optionalDependencies: { fsevents: "~2.3.3" } },
    };
    expect(missingOptionals(packages)).toEqual(["node_modules/workerd → @cloudflare/workerd-darwin-64@1.2.0", "node_modules/b → fsevents@~2.3.3"]);
  });
});

// Runs the repository's tsc on a project and returns what it printed: "" when it compiles.
import { execFileSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";

const tsc = join(resolve(import.meta.dirname, "../../.."), "node_modules/.bin/tsc");

export function tscErrors(tsconfig: string): string {
  try {
    execFileSync(tsc, ["-p", tsconfig], { cwd: dirname(tsconfig), encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ""}${stderr ?? ""}` || String(error);
  }
}

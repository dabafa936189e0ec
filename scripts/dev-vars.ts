// .dev.vars: created from .dev.vars.example on first run, with every `generate` replaced
// by a random secret, and read back as a record.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export function ensureDevVars(root: string): Record<string, string> {
  const path = `${root}/.dev.vars`;
  if (!existsSync(path)) {
    const example = readFileSync(`${root}/.dev.vars.example`, "utf8");
    writeFileSync(path, example.replace(/=generate$/gm, () => `=${randomBytes(24).toString("hex")}`), { mode: 0o600 });
    console.log("created .dev.vars with fresh local secrets");
  }
  return readDevVars(path);
}

export function readDevVars(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) vars[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

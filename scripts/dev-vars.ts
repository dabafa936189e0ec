// .dev.vars: created from .dev.vars.example on first run, with every `generate` replaced
// by a random secret, and read back as a record.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

export function ensureDevVars(root: string): Record<string, string> {
  const path = `${root}/.dev.vars`;
  if (!existsSync(path)) {
    const example = readFileSync(`${root}/.dev.vars.example`, "utf8");
    writeFileSync(path, example.replace(/=generate$/gm, () => `=${randomBytes(24).toString("hex")}`), { mode: 0o600 });
    console.log("created .dev.vars with fresh local secrets");
  } else {
    // A secret added to the example since .dev.vars was made (DESTINATIONS_KEY, say) is appended, generated.
    const have = readDevVars(path);
    const missing = [...readFileSync(`${root}/.dev.vars.example`, "utf8").matchAll(/^([A-Z0-9_]+)=generate$/gm)].map((m) => m[1]!).filter((name) => !(name in have));
    if (missing.length > 0) {
      const ending = readFileSync(path, "utf8").endsWith("\n") ? "" : "\n";
      appendFileSync(path, ending + missing.map((name) => `${name}=${randomBytes(24).toString("hex")}\n`).join(""));
      console.log(`added ${missing.join(", ")} to .dev.vars`);
    }
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

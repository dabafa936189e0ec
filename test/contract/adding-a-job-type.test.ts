// Follows the recipe of docs/architecture.md ("Adding a job type") in a copy of what it
// touches, with a throwaway type: the schema file and its line in the registry; the
// generation; the processor module and its line; the client's result fixture; the docs.
// At each step the type check and the doc check name what is still missing, and at the end
// the names, the OpenAPI document and the client's types have the type.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { tscErrors } from "../../packages/client/test/tsc.ts";
import { JOB_TYPES } from "../../src/contract/names.ts";
import { jobTypeDocProblems } from "../support/job-type-docs.ts";

const root = resolve(import.meta.dirname, "../..");
const copy = mkdtempSync(join(tmpdir(), "media-jobs-new-type-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** What the type check reads (the contract, the processor, the client) and what the recipe edits. */
const COPIED = ["src/contract", "src/net", "container/src", "packages/client/src", "packages/client/scripts", "packages/client/package.json", "packages/client/test/fixtures.ts", "README.md", "docs/job-types.md"];

function edit(path: string, before: string, after: string) {
  const text = readFileSync(join(copy, path), "utf8");
  if (!text.includes(before)) throw new Error(`${path} no longer holds ${JSON.stringify(before)}; update this test to the recipe`);
  writeFileSync(join(copy, path), text.replace(before, after));
}

const read = (path: string) => readFileSync(join(copy, path), "utf8");

/** Each file the type check complains about, with what it says ("(tsc)": what names no file). */
function typeErrors(): Map<string, string> {
  const output = tscErrors(join(copy, "tsconfig.json"));
  const lines = output.split("\n").filter((line) => /error TS\d+/.test(line));
  if (output && !lines.length) return new Map([["(tsc)", output]]);
  const byFile = new Map<string, string>();
  for (const line of lines) {
    const file = /^(\S+?)\(\d+,\d+\): error/.exec(line)?.[1] ?? "(tsc)";
    byFile.set(file, `${byFile.get(file) ?? ""}${line}\n`);
  }
  return byFile;
}

it("a new job type is a schema file and a processor module; the checks name the rest, and generation derives it", () => {
  for (const path of COPIED) cpSync(join(root, path), join(copy, path), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  symlinkSync(join(root, "packages/client/node_modules"), join(copy, "packages/client/node_modules"));
  // The root tsconfig.json's options, on the copied directories and a use of the client.
  writeFileSync(
    join(copy, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2023", lib: ["es2023"], module: "esnext", moduleResolution: "bundler", strict: true, noUncheckedIndexedAccess: true,
        noImplicitOverride: true, verbatimModuleSyntax: true, erasableSyntaxOnly: true, allowImportingTsExtensions: true, noEmit: true,
        skipLibCheck: true, isolatedModules: true, types: ["node"],
      },
      include: ["src/contract", "container/src", "packages/client/src", "packages/client/scripts", "packages/client/test/fixtures.ts", "use.ts"],
    }),
  );
  writeFileSync(
    join(copy, "use.ts"),
    [
      `import type { JobResult, JobType, MediaJobsClient } from "./packages/client/src/index.ts";`,
      `export const type: JobType = "throwawayType";`,
      `export const enqueue = (client: MediaJobsClient) => client.enqueueJob({ type: "throwawayType", params: { url: "https://example.com/a.png", bytes: 16 } });`,
      `export const bytes = (result: JobResult<"throwawayType">): number => result.bytes;`,
    ].join("\n"),
  );

  // 1. The schema file, and its line in the registry.
  writeFileSync(
    join(copy, "src/contract/jobs/throwaway-type.ts"),
    [
      `import { z } from "zod";`,
      `import { type JobTypeDefinition, mediaUrl, signedFile } from "../common.ts";`,
      `import { UPLOAD_MEDIA } from "../uploads.ts";`,
      `export const throwawayTypeParams = z.strictObject({ url: mediaUrl, bytes: z.int().min(1).max(1024).default(16) });`,
      `export const throwawayTypeResult = z.object({ ...signedFile, bytes: z.int() });`,
      `export const throwawayType = { name: "throwawayType", params: throwawayTypeParams, result: throwawayTypeResult, uploadContentTypes: UPLOAD_MEDIA.image } as const satisfies JobTypeDefinition;`,
    ].join("\n"),
  );
  edit("src/contract/registry.ts", `import type { JobType } from "./names.ts";`, `import { throwawayType } from "./jobs/throwaway-type.ts";\nimport type { JobType } from "./names.ts";`);
  edit("src/contract/registry.ts", `} as const satisfies`, `  throwawayType,\n} as const satisfies`);
  // Not generated yet: the registry has a type the names lack.
  let errors = typeErrors();
  expect(errors.get("src/contract/registry.ts")).toContain("throwawayType");

  // 2. The generation: names in both dialects, then the OpenAPI document's client types.
  execFileSync(join(root, "node_modules/.bin/node"), [join(copy, "packages/client/scripts/generate-types.ts")], { cwd: copy, stdio: "pipe" });
  expect(read("src/contract/names.gen.ts")).toContain(`throwawayType: "throwaway-type",`);
  for (const name of ["ThrowawayTypeParams", "ThrowawayTypeResult", "CreateThrowawayTypeRequest", `"throwaway-type"`]) expect(read("packages/client/src/contract.gen.ts")).toContain(name);
  // What is left is named: the processor's registration, the client's fixture, the docs.
  errors = typeErrors();
  expect([...errors.keys()].sort()).toEqual(["container/src/processors/index.ts", "packages/client/test/fixtures.ts"]);
  for (const text of errors.values()) expect(text).toContain("throwawayType");
  expect(jobTypeDocProblems(copy, [...JOB_TYPES, "throwawayType"])).toEqual([
    "README.md: no row in the job type table for throwawayType (`throwaway-type` / `throwawayType`)",
    "docs/job-types.md: no row in the table of types for throwawayType (`throwawayType` / `throwaway-type`)",
    `docs/job-types.md: no row in "What the processor runs" for throwawayType (\`throwawayType\`)`,
    "docs/job-types.md: no section for throwawayType (## throwawayType)",
  ]);

  // 3. The processor module and its line; the fixture; the docs' rows and section.
  writeFileSync(
    join(copy, "container/src/processors/throwaway-type.ts"),
    [
      `import { writeFile } from "node:fs/promises";`,
      `import type { JobParams } from "../../../src/contract/registry.ts";`,
      `import type { StoredResult } from "../../../src/contract/stored-result.ts";`,
      `import type { ProcessorContext } from "./types.ts";`,
      `export async function throwawayType(params: JobParams<"throwawayType">, ctx: ProcessorContext): Promise<StoredResult<"throwawayType">> {`,
      `  const head = await ctx.input.head(params.bytes);`,
      `  await writeFile(ctx.addOutput("head.bin", "application/octet-stream"), head);`,
      `  return { url: "head.bin", size: head.length, bytes: head.length };`,
      `}`,
    ].join("\n"),
  );
  edit("container/src/processors/index.ts", `import type { Processor } from "./types.ts";`, `import type { Processor } from "./types.ts";\nimport { throwawayType } from "./throwaway-type.ts";`);
  edit("container/src/processors/index.ts", "export const processors: { [T in JobType]: Processor<T> } = {\n", "export const processors: { [T in JobType]: Processor<T> } = {\n  throwawayType,\n");
  edit("packages/client/test/fixtures.ts", `export const RESULTS: { [T in JobType]: JobResult<T> } = {`, `export const RESULTS: { [T in JobType]: JobResult<T> } = {\n  throwawayType: { ...link("head"), size: 16, bytes: 16 },`);
  edit("README.md", "|---|---|\n", "|---|---|\n| `throwaway-type` / `throwawayType` | the input's first bytes |\n");
  edit("docs/job-types.md", "|---|---|---|\n", "|---|---|---|\n| `throwawayType` / `throwaway-type` | image | its first bytes |\n");
  edit("docs/job-types.md", "| type | tool runs, in order |\n|---|---|\n", "| type | tool runs, in order |\n|---|---|\n| `throwawayType` | none |\n");
  writeFileSync(join(copy, "docs/job-types.md"), `${read("docs/job-types.md")}\n## throwawayType\n\nThe input's first bytes.\n`);
  expect([...typeErrors().entries()]).toEqual([]);
  expect(jobTypeDocProblems(copy, [...JOB_TYPES, "throwawayType"])).toEqual([]);
});

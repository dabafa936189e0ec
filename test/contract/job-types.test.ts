// A job type is its schema file and its processor module (docs/architecture.md, "Adding a
// job type"). What else it needs is derived from the registry, generated, or named here
// (or by the type check: its processor's line in container/src/processors/index.ts, its
// result fixture in packages/client/test/fixtures.ts). adding-a-job-type.test.ts follows
// the recipe with a throwaway type.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateJobTypeNames, JOB_TYPE_NAMES_PATH } from "../../packages/client/scripts/contract-types.ts";
import type { JobTypeDefinition } from "../../src/contract/common.ts";
import { JOB_TYPES, jobTypes, kebabCase } from "../../src/contract/registry.ts";
import { jobTypeDocProblems } from "../support/job-type-docs.ts";

const root = resolve(import.meta.dirname, "../..");

/** `video-thumbnail` → `videoThumbnail`. */
const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

describe("a job type is one module", () => {
  it("each schema file in src/contract/jobs/ defines the type it is named after, and the registry lists it", async () => {
    const files = readdirSync(join(root, "src/contract/jobs")).filter((file) => file.endsWith(".ts"));
    const problems: string[] = [];
    for (const file of files) {
      const type = camelCase(file.replace(/\.ts$/, ""));
      const module = (await import(join(root, "src/contract/jobs", file))) as Record<string, JobTypeDefinition | undefined>;
      const definition = module[type];
      if (definition?.name !== type) problems.push(`src/contract/jobs/${file} exports no ${type} = { name: "${type}", params, result, uploadContentTypes }`);
      else if ((jobTypes as Record<string, JobTypeDefinition>)[type] !== definition) problems.push(`src/contract/registry.ts does not list ${type} (src/contract/jobs/${file})`);
    }
    for (const type of Object.keys(jobTypes)) if (!files.includes(`${kebabCase(type)}.ts`)) problems.push(`the registry lists ${type}, whose schema file is not src/contract/jobs/${kebabCase(type)}.ts`);
    expect(problems).toEqual([]);
  });

  it("src/contract/names.gen.ts names the registry's types now (else: npm run generate -w @media-jobs/client)", () => {
    expect(JOB_TYPES).toEqual(Object.keys(jobTypes));
    expect(readFileSync(JOB_TYPE_NAMES_PATH, "utf8")).toBe(generateJobTypeNames());
  });

  it("each type has its processor module and its test (its line in processors/index.ts: the type check)", () => {
    const missing = JOB_TYPES.flatMap((type) =>
      [`container/src/processors/${kebabCase(type)}.ts`, `container/test/${kebabCase(type)}.test.ts`].filter((path) => !existsSync(join(root, path))).map((path) => `${type}: no ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("README.md and docs/job-types.md describe each type, and no other", () => {
    expect(jobTypeDocProblems(root, JOB_TYPES)).toEqual([]);
  });
});

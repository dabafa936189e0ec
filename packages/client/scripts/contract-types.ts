// The files generated from the contract, both committed:
// - src/contract/names.gen.ts, the job type names in both dialects, from the registry
//   (src/contract/registry.ts), for src/contract/names.ts, which the client bundles without zod;
// - packages/client/src/contract.gen.ts, plain TypeScript types of the API for the client's
//   published declarations: openapi-typescript (default options) run on the OpenAPI document,
//   which src/contract/openapi-schemas.ts generates from the contract's zod schemas.
// test/contract/job-types.test.ts and packages/client/test/contract-types.test.ts fail when
// either differs from what the contract produces now.
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { buildOpenApiDocument } from "../../../src/contract/openapi.ts";
import { kebabCase } from "../../../src/contract/names.ts";
import { jobTypes } from "../../../src/contract/registry.ts";

export const JOB_TYPE_NAMES_PATH = new URL("../../../src/contract/names.gen.ts", import.meta.url);

const NAMES_HEADER = `// Generated from src/contract/registry.ts by packages/client/scripts/generate-types.ts: each
// job type's canonical name and its HTTP name (the same, kebab-cased). Do not edit; run
// \`npm run generate -w @media-jobs/client\`.
`;

/** names.gen.ts as the registry says it now, its types in the registry's order. */
export function generateJobTypeNames(): string {
  const entries = Object.keys(jobTypes).map((type) => `  ${type}: "${kebabCase(type)}",`);
  return `${NAMES_HEADER}export const JOB_TYPE_HTTP_NAMES = {\n${entries.join("\n")}\n} as const;\n`;
}

export const CONTRACT_TYPES_PATH = new URL("../src/contract.gen.ts", import.meta.url);

const HEADER = `// Generated from the OpenAPI document (src/contract/openapi.ts) by
// packages/client/scripts/generate-types.ts with openapi-typescript. Do not edit; run
// \`npm run generate -w @media-jobs/client\` after changing the contract.
`;

export async function generateContractTypes(): Promise<string> {
  // Our document type is plain JSON Schema records; openapi-typescript validates it as it reads it.
  const ast = await openapiTS(buildOpenApiDocument() as unknown as OpenAPI3);
  return HEADER + astToString(ast);
}

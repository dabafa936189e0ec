// Plain TypeScript types of the API, for the client's published declarations:
// openapi-typescript (default options) run on the OpenAPI document,
// which src/contract/openapi-schemas.ts generates from the contract's zod schemas. The
// result is committed as packages/client/src/contract.gen.ts; packages/client/test/contract-types.test.ts
// fails when it differs from what the contract produces now.
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { buildOpenApiDocument } from "../../../src/contract/openapi.ts";

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

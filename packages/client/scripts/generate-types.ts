// `npm run generate -w @media-jobs/client`: rewrites packages/client/src/contract.gen.ts from the contract.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CONTRACT_TYPES_PATH, generateContractTypes } from "./contract-types.ts";

writeFileSync(CONTRACT_TYPES_PATH, await generateContractTypes());
console.log(`wrote ${fileURLToPath(CONTRACT_TYPES_PATH)}`);

// `npm run generate -w @media-jobs/client`: rewrites the files generated from the contract
// (contract-types.ts): src/contract/names.gen.ts, then packages/client/src/contract.gen.ts.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CONTRACT_TYPES_PATH, generateContractTypes, generateJobTypeNames, JOB_TYPE_NAMES_PATH } from "./contract-types.ts";

const names = generateJobTypeNames();
if (readFileSync(JOB_TYPE_NAMES_PATH, "utf8") !== names) {
  writeFileSync(JOB_TYPE_NAMES_PATH, names);
  console.log(`wrote ${fileURLToPath(JOB_TYPE_NAMES_PATH)}`);
  // This process loaded the names as they were, and the OpenAPI document is built from
  // them: a fresh process builds it from the new ones.
  execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], { stdio: "inherit" });
} else {
  writeFileSync(CONTRACT_TYPES_PATH, await generateContractTypes());
  console.log(`wrote ${fileURLToPath(CONTRACT_TYPES_PATH)}`);
}

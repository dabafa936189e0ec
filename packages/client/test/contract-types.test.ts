// The client keeps step with the API's contract:
// - its plain types (packages/client/src/contract.gen.ts) are what openapi-typescript makes of the
//   OpenAPI document now, so a contract change fails here until they are regenerated
//   (and types.test-d.ts then checks them against the zod schemas both ways);
// - every operation of the document has a client method;
// - openapi-typescript with its default options, run on the document, gives types under
//   which real requests (fields with defaults left out) and responses type-check.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CONTRACT_TYPES_PATH, generateContractTypes } from "../scripts/contract-types.ts";
import { MediaJobsClient } from "../src/index.ts";
import { JOB_TYPES } from "../../../src/contract/names.ts";
import { buildOpenApiDocument } from "../../../src/contract/openapi.ts";
import { tscErrors } from "./tsc.ts";
import { cancelledJob, completedJob, failedJob, processingJob, queuedJob } from "./fixtures.ts";


/** The client method of each public operation; the rest are not the client's business. */
const CLIENT_METHODS: Record<string, keyof MediaJobsClient> = {
  createJob: "enqueueJob",
  getJob: "getJob",
  listJobs: "listJobs",
  cancelJob: "cancelJob",
  getUsage: "getUsage",
  listWebhookDeliveries: "listWebhookDeliveries",
  redeliverWebhook: "redeliverWebhook",
  deleteJob: "deleteJob",
  createUpload: "createUpload",
  getUpload: "getUpload",
  createUploadToken: "createUploadToken",
  streamJobEvents: "jobEvents",
  createDestination: "createDestination",
  listDestinations: "listDestinations",
  getDestination: "getDestination",
  deleteDestination: "deleteDestination",
  checkDestination: "checkDestination",
  createWorkflow: "createWorkflow",
  getWorkflow: "getWorkflow",
  listWorkflows: "listWorkflows",
  cancelWorkflow: "cancelWorkflow",
  deleteWorkflow: "deleteWorkflow",
  createTemplate: "createTemplate",
  getTemplate: "getTemplate",
  listTemplates: "listTemplates",
  updateTemplate: "updateTemplate",
  deleteTemplate: "deleteTemplate",
};
// putUploadContent is the target a created upload names; uploadFile PUTs to it. The tus
// operations are the protocol uploadFile speaks for large files (and tus clients speak).
// The downloads' CORS preflight is a browser's.
// A workflow's event stream: waitForWorkflow and getWorkflow cover it for now.
const NOT_IN_THE_CLIENT = ["streamWorkflowEvents", "downloadFile", "downloadFilePreflight", "getHealth", "getOpenApiDocument", "putUploadContent", "tusOptions", "tusUploadOptions", "tusCreate", "tusHead", "tusPatch", "tusOverride", "tusTerminate"];

describe("the client and the contract", () => {
  it("packages/client/src/contract.gen.ts is what the contract generates now (else: npm run generate -w @media-jobs/client)", async () => {
    expect(readFileSync(fileURLToPath(CONTRACT_TYPES_PATH), "utf8")).toBe(await generateContractTypes());
  });

  it("has a method for every operation of the API", () => {
    const document = buildOpenApiDocument();
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId as string));
    expect(operations.filter((id) => !NOT_IN_THE_CLIENT.includes(id)).sort()).toEqual(Object.keys(CLIENT_METHODS).sort());
    for (const method of Object.values(CLIENT_METHODS)) expect(typeof MediaJobsClient.prototype[method]).toBe("function");
  });
});

describe("openapi-typescript on the OpenAPI document, with its default options", () => {
  it("types real requests without their defaulted fields, and real responses", async () => {
    const dir = mkdtempSync(join(tmpdir(), "media-jobs-openapi-ts-"));
    try {
      writeFileSync(join(dir, "api.ts"), await generateContractTypes());
      const url = "https://example.com/a.jpg";
      const bodies = [
        { type: "compress-image", input: url },
        { type: "compress-image", input: url, options: { quality: 70, format: "webp" } },
        { type: "compressImage", params: { url } },
        { type: "compress-video", params: { url, codec: "vp9", format: "webm" }, priority: 2 },
        { type: "compress-pdf", input: url, options: {}, webhookUrl: "https://example.com/hook" },
        { type: "video-thumbnail", input: url, options: { width: 320 } },
        { type: "extract-audio", input: url },
        { type: "video-extraction", input: url, options: { frames: { mode: "count", count: 3 } } },
        { type: "videoExtraction", params: { url, audio: false, frames: { mode: "interval", every: 5 } } },
        { type: "video-storyboard", input: url, options: { interval: 5, format: "webp" } },
        { type: "video-preview", input: url, options: { format: "mp4", duration: 3 } },
        { type: "videoPreview", params: { url, format: "gif", start: 1.5, width: 240, fps: 12, loop: false } },
      ];
      const jobs = JOB_TYPES.flatMap((type) => [queuedJob(type), processingJob(type), completedJob(type), failedJob(type), cancelledJob(type)]);
      const typed = (name: string, type: string, value: unknown) => `export const ${name}: ${type} = ${JSON.stringify(value, null, 2)};\n`;
      writeFileSync(
        join(dir, "call.ts"),
        [
          `import type { paths } from "./api.ts";`,
          `type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;`,
          `type CreateBody = Json<paths["/v1/jobs"]["post"]["requestBody"]>;`,
          `type Created = Json<paths["/v1/jobs"]["post"]["responses"][201]>;`,
          `type Job = Json<paths["/v1/jobs/{id}"]["get"]["responses"][200]>;`,
          `type Page = Json<paths["/v1/jobs"]["get"]["responses"][200]>;`,
          `type Cancelled = Json<paths["/v1/jobs/{id}/cancel"]["post"]["responses"][200]>;`,
          `type ListQuery = NonNullable<paths["/v1/jobs"]["get"]["parameters"]["query"]>;`,
          `/** A typed call, as an application would write it over fetch. */`,
          `export async function createJob(body: CreateBody): Promise<Created> {`,
          `  const response = await fetch("http://127.0.0.1:8787/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });`,
          `  return (await response.json()) as Created;`,
          `}`,
          `export async function listJobs(query: ListQuery): Promise<Page> {`,
          `  const response = await fetch("http://127.0.0.1:8787/v1/jobs?" + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])));`,
          `  return (await response.json()) as Page;`,
          `}`,
          ...bodies.map((body, i) => `void createJob(${JSON.stringify(body)});${i === 0 ? " // no priority, no options: the server fills them in" : ""}`),
          `void listJobs({});`,
          `void listJobs({ status: "pending", limit: 10 });`,
          typed("createdJob", "Created", { id: "job_1", type: "compress-image", status: "queued", priority: 5, createdAt: "2026-01-01T00:00:00.000Z" }),
          typed("jobs", "Job[]", jobs),
          typed("page", "Page", { data: jobs, nextCursor: "WzE3NjcyMjU2MDAwMDAsImpvYl8xIl0", hasMore: true }),
          typed("cancelled", "Cancelled[]", [{ success: true, jobId: "job_1" }, { success: false, jobId: "job_1", status: "completed" }]),
        ].join("\n"),
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { target: "es2022", lib: ["es2023", "dom"], types: [], module: "esnext", moduleResolution: "bundler", allowImportingTsExtensions: true, strict: true, noEmit: true },
          files: ["call.ts"],
        }),
      );
      expect(tscErrors(join(dir, "tsconfig.json"))).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

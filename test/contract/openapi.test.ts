// The OpenAPI document as a pure function: valid OpenAPI 3.1, clean under Redocly's
// recommended rules, complete for every job type, and its create-request schema accepts
// exactly the bodies parseCreateJob accepts.
// (Real responses against the document: test/worker/openapi.test.ts.)
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parseCreateJob } from "../../src/contract/create-job.ts";
import { JOB_ERROR_CODES } from "../../src/contract/job.ts";
import { JOB_TYPE_HTTP_NAMES, JOB_TYPES } from "../../src/contract/names.ts";
import { buildOpenApiDocument } from "../../src/contract/openapi.ts";
import { componentPrefix } from "../../src/contract/openapi-schemas.ts";
import { OUTPUT_CONTENT_TYPES } from "../../src/contract/processor-protocol.ts";
import { UPLOADABLE_CONTENT_TYPES } from "../../src/contract/uploads.ts";

const doc = buildOpenApiDocument() as any;
const schemas = doc.components.schemas as Record<string, any>;

describe("the OpenAPI document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("has no problem under Redocly's recommended rules (what `npx @redocly/cli lint` checks)", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    expect(problems.map(({ severity, ruleId, message, location }) => `${severity} ${ruleId} at ${location[0]?.pointer}: ${message}`)).toEqual([]);
  });

  it("is the same on every build and plain JSON", () => {
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument()))).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it("has params, options, result and job schemas for every job type, in both spellings", () => {
    for (const type of JOB_TYPES) {
      const prefix = componentPrefix(type);
      for (const suffix of ["Params", "Options", "Result", "Job", "CompletedSdkJob"]) expect(schemas[`${prefix}${suffix}`], `${prefix}${suffix}`).toBeDefined();
      expect(schemas[`${prefix}Params`].properties.url).toBeDefined();
      expect(schemas[`${prefix}Options`].properties.url).toBeUndefined();
      expect(schemas[`Create${prefix}Request`].properties.type.enum).toEqual([JOB_TYPE_HTTP_NAMES[type], type]);
    }
    expect(schemas.CreateJobRequest.oneOf).toHaveLength(JOB_TYPES.length * 2);
    expect(schemas.JobFailure.properties.code.enum).toEqual([...JOB_ERROR_CODES]);
  });

  it("names bearer auth, the rate-limit headers and the signed webhook", () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/v1/files/{token}/{name}"].get.security).toEqual([]);
    expect(doc.paths["/v1/openapi.json"].get.security).toEqual([]);
    expect(Object.keys(doc.components.responses.RateLimited.headers)).toEqual(expect.arrayContaining(["Retry-After", "RateLimit-Policy", "RateLimit"]));
    expect(Object.keys(doc.paths["/v1/jobs"].post.responses["201"].headers)).toEqual(expect.arrayContaining(["RateLimit-Policy", "RateLimit"]));
    const hook = doc.webhooks.jobFinished.post;
    expect(hook.parameters.map((p: { name: string }) => p.name)).toEqual(["x-service-timestamp", "x-service-signature", "webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(hook.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SdkJob" });
  });
});

describe("what the document says of bodies that are not JSON, and of limits", () => {
  it("downloads are declared with the outputs' own media types; an upload's PUT takes its declared type", () => {
    const download = doc.paths["/v1/files/{token}/{name}"].get.responses;
    expect(Object.keys(download["200"].content).sort()).toEqual([...OUTPUT_CONTENT_TYPES].sort());
    expect(Object.keys(download["206"].content).sort()).toEqual([...OUTPUT_CONTENT_TYPES].sort());
    expect(download["416"].headers["Content-Range"]).toMatchObject({ required: true });
    const put = doc.paths["/v1/uploads/{id}/content"].put.requestBody.content;
    for (const type of [...UPLOADABLE_CONTENT_TYPES, "application/octet-stream"]) expect(put[type], type).toBeDefined();
  });

  it("a 429's details name the policy and have a window only for a limit over time; a 413's may carry its limit", () => {
    expect(schemas.RateLimitDetails.required.sort()).toEqual(["limit", "policy", "retryAfter"]);
    expect(schemas.RateLimitDetails.properties.window).toBeDefined();
    expect(schemas.PayloadTooLargeError.properties.error.properties.details).toBeDefined();
    expect(schemas.PayloadTooLargeError.properties.error.required).not.toContain("details");
  });
});

describe("the create-request schema and parseCreateJob agree", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, "openapi.json");
  const validate = ajv.compile({ $ref: "openapi.json#/components/schemas/CreateJobRequest" });
  const url = "https://example.com/a.jpg";

  const bodies: [string, unknown][] = [
    ["HTTP dialect", { type: "compress-image", input: url, options: { quality: 70, format: "webp" } }],
    ["HTTP dialect, camelCase type, no options", { type: "compressImage", input: url }],
    ["SDK dialect", { type: "compressImage", params: { url, quality: 70 }, priority: 2 }],
    ["SDK dialect, HTTP type", { type: "compress-video", params: { url, codec: "vp9", format: "webm" } }],
    ["every envelope field", { type: "extract-audio", input: url, priority: 10, webhookUrl: "https://example.com/hook", webhookSecret: "s".repeat(16) }],
    ["video extraction with frames", { type: "videoExtraction", params: { url, audio: false, frames: { mode: "count", count: 3 } } }],
    ["video preview", { type: "video-preview", input: url, options: { format: "gif", start: 2.5, duration: 3, width: 480, fps: 12, loop: false } }],
    ["video preview too long", { type: "videoPreview", params: { url, duration: 31 } }],
    ["video adaptive with renditions", { type: "video-adaptive", input: url, options: { renditions: [{ height: 360, bitrate: "800K" }, { height: 720 }], segmentDuration: 4, mp4: true, dash: true } }],
    ["video adaptive, odd rendition height", { type: "videoAdaptive", params: { url, renditions: [{ height: 361 }] } }],
    ["unknown type", { type: "resize-image", input: url }],
    ["both dialects at once", { type: "compress-image", input: url, params: { url } }],
    ["url inside options", { type: "compress-image", input: url, options: { url } }],
    ["unknown option", { type: "compress-image", input: url, options: { qualty: 70 } }],
    ["unknown top-level field", { type: "compress-image", input: url, priorty: 1 }],
    ["quality out of range", { type: "compress-image", input: url, options: { quality: 101 } }],
    ["priority out of range", { type: "compress-pdf", input: url, priority: 11 }],
    ["short webhook secret", { type: "compress-pdf", input: url, webhookSecret: "short" }],
    ["params without url", { type: "compressPdf", params: { quality: "low" } }],
    ["missing input", { type: "compress-pdf" }],
    ["wrong enum", { type: "video-thumbnail", input: url, options: { format: "gif" } }],
    ["too many frames", { type: "video-extraction", input: url, options: { frames: { mode: "count", count: 31 } } }],
    ["video storyboard", { type: "video-storyboard", input: url, options: { interval: 5, width: 160, format: "webp" } }],
    ["too many storyboard tiles", { type: "videoStoryboard", params: { url, count: 1001 } }],
  ];

  it.each(bodies)("%s", (_name, body) => {
    const parsed = parseCreateJob(body);
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(parsed.ok);
  });

  it("(known gaps: rules zod checks in code, which JSON Schema cannot carry, are described in words)", () => {
    // webm with h264 and "neither audio nor frames" are refinements: the document accepts them, the API refuses them.
    const refined = { type: "compress-video", input: url, options: { codec: "h264", format: "webm" } };
    expect(parseCreateJob(refined).ok).toBe(false);
    expect(validate(refined)).toBe(true);
    // So is a storyboard sprite wider than 16383 pixels (columns × width), said in columns' description.
    const wide = { type: "video-storyboard", input: url, options: { width: 1280, columns: 13 } };
    expect(parseCreateJob(wide).ok).toBe(false);
    expect(validate(wide)).toBe(true);
    expect(JSON.stringify(doc.components.schemas)).toContain("columns × width at most 16383");
  });
});

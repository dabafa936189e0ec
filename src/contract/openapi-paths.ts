// The paths of the OpenAPI document (src/contract/openapi.ts): every public route with its
// parameters, bodies, success responses and the error responses it can give, as
// docs/api.md, docs/limits.md and docs/webhooks.md describe them. Schemas are referenced
// from openapi-schemas.ts; error responses from the document's components.
import { z } from "zod";
import { API_ERRORS, type ApiErrorCode } from "./errors.ts";
import { listJobsQuery } from "./list-jobs.ts";
import { ERROR_RESPONSES, schemaRef, type JsonSchema } from "./openapi-schemas.ts";

export const json = (schema: JsonSchema, example?: unknown) => ({ "application/json": { schema, ...(example === undefined ? {} : { example }) } });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

function errors(...codes: ApiErrorCode[]): Record<string, unknown> {
  return Object.fromEntries([...codes, "internal_error" as const].map((code) => [String(API_ERRORS[code].status), responseRef(ERROR_RESPONSES[code])]));
}

/**
 * The 4xx of a route that takes no key and no input, so none of the codes applies to it:
 * documented all the same, as every operation's 4xx is, with the body every error has.
 */
const anyClientError = {
  "4XX": { description: "Not expected: this route takes no key and no input. Any 4xx still has the error body.", headers: { "X-Request-Id": headerRef("X-Request-Id") }, content: json(schemaRef("Error")) },
};

const jobId = { name: "id", in: "path", required: true, description: "The job's id (`job_…`).", schema: { type: "string" } };
const uploadId = { name: "id", in: "path", required: true, description: "The upload's id (`upl_…`).", schema: { type: "string" } };
const ok = (description: string, schema: JsonSchema, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { "X-Request-Id": headerRef("X-Request-Id"), ...extraHeaders },
  content: json(schema),
});

export function paths(): Record<string, Record<string, JsonSchema>> {
  return {
    "/v1/jobs": {
      post: {
        operationId: "createJob",
        tags: ["jobs"],
        summary: "Create a job",
        description:
          "Accepts either dialect (HTTP `{type, input, options?}` or client-library `{type, params}`) and either spelling of `type`; returns at once. Counts against the plan's hourly quota. At most 64 KiB.",
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "1–255 characters. The same key and body within 24 h replays the first response (with `Idempotent-Replayed: true`); another body is 422, a request still running is 409.",
            schema: { type: "string", minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: { required: true, content: json(schemaRef("CreateJobRequest"), { type: "compress-image", input: "https://example.com/a.jpg", options: { quality: 70, format: "webp" } }) },
        responses: {
          "201": ok("Created and queued.", schemaRef("CreatedJob"), {
            Location: { description: "`/v1/jobs/{id}`.", schema: { type: "string" } },
            "RateLimit-Policy": headerRef("RateLimit-Policy"),
            RateLimit: headerRef("RateLimit"),
            "Idempotent-Replayed": { description: "`true` when this is the replay of an earlier request with the same Idempotency-Key.", schema: { type: "string", const: "true" } },
          }),
          ...errors("invalid_input", "unauthorized", "idempotency_key_in_use", "payload_too_large", "unsupported_media_type", "idempotency_key_reused", "rate_limit_exceeded"),
        },
      },
      get: {
        operationId: "listJobs",
        tags: ["jobs"],
        summary: "List jobs, newest first",
        parameters: queryParameters(listJobsQuery),
        responses: { "200": ok("One page of jobs.", schemaRef("JobList")), ...errors("invalid_input", "unauthorized", "rate_limit_exceeded") },
      },
    },
    "/v1/jobs/{id}": {
      get: {
        operationId: "getJob",
        tags: ["jobs"],
        summary: "Retrieve a job",
        description:
          "Every `url` in `result` is freshly signed on each call and valid for one hour. With `Prefer: wait=N` the request is held until the job is final or N seconds (at most 60) pass, and counts once against the read limit.",
        parameters: [
          jobId,
          { name: "Prefer", in: "header", required: false, description: "`wait=N`: hold the request up to N seconds (capped at 60) for the job to end.", schema: { type: "string", examples: ["wait=30"] } },
        ],
        responses: {
          "200": ok("The job: final, or as it is when the wait ends.", schemaRef("Job"), {
            "Preference-Applied": { description: "`wait=N` with the seconds applied, when the request asked to wait.", schema: { type: "string" } },
          }),
          ...errors("unauthorized", "not_found", "rate_limit_exceeded"),
        },
      },
      delete: {
        operationId: "deleteJob",
        tags: ["jobs"],
        summary: "Delete a job, its webhook deliveries and its outputs",
        description: "A queued or processing job is cancelled first (as by `/cancel`), then deleted. Afterwards the job answers 404 and its download links stop working.",
        parameters: [jobId],
        responses: { "200": ok("Deleted.", schemaRef("DeletedJob")), ...errors("unauthorized", "not_found") },
      },
    },
    "/v1/jobs/{id}/events": {
      get: {
        operationId: "streamJobEvents",
        tags: ["jobs"],
        summary: "Stream a job's progress and end",
        description:
          "Server-sent events: `progress` with the job (as in `getJob`) each time its status or progress changes, then one `end` with the final job, and the stream closes. A connection lasts at most 60 s; counts once against the read limit.",
        parameters: [jobId],
        responses: {
          "200": { description: "The event stream.", headers: { "X-Request-Id": headerRef("X-Request-Id") }, content: { "text/event-stream": { schema: { type: "string" } } } },
          ...errors("unauthorized", "not_found", "rate_limit_exceeded"),
        },
      },
    },
    "/v1/jobs/{id}/cancel": {
      post: {
        operationId: "cancelJob",
        tags: ["jobs"],
        summary: "Cancel a queued or processing job",
        description: "On a finished job nothing changes and the answer is `{success: false, jobId, status}`.",
        parameters: [jobId],
        responses: { "200": ok("Cancelled, or already finished.", schemaRef("CancelResult")), ...errors("unauthorized", "not_found") },
      },
    },
    "/v1/jobs/{id}/webhooks": {
      get: {
        operationId: "listWebhookDeliveries",
        tags: ["webhooks"],
        summary: "A job's webhook deliveries, with every attempt",
        parameters: [jobId],
        responses: { "200": ok("Deliveries, newest first.", schemaRef("WebhookDeliveryList")), ...errors("unauthorized", "not_found", "rate_limit_exceeded") },
      },
    },
    "/v1/jobs/{id}/webhooks/redeliver": {
      post: {
        operationId: "redeliverWebhook",
        tags: ["webhooks"],
        summary: "Send a finished job's webhook again",
        description: "A new delivery (new `webhook-id`, same retry schedule) to the job's `webhookUrl`. 400 when the job has no `webhookUrl` or has not finished.",
        parameters: [jobId],
        responses: { "202": ok("The new delivery.", schemaRef("WebhookDelivery")), ...errors("invalid_input", "unauthorized", "not_found") },
      },
    },
    "/v1/uploads": {
      post: {
        operationId: "createUpload",
        tags: ["uploads"],
        summary: "Start a direct upload",
        description:
          "Declares a file and returns where to PUT its bytes: a presigned R2 URL in production, or this Worker's own signed route when R2 credentials are not configured. Use the upload as a job's input with `upload:upl_…`. Unused uploads are removed 24 h after creation or their last use by a job.",
        requestBody: { required: true, content: json(schemaRef("CreateUploadRequest"), { filename: "photo.jpg", contentType: "image/jpeg", size: 2483921 }) },
        responses: {
          "201": ok("Created; PUT the bytes to `target`.", schemaRef("CreatedUpload"), { Location: { description: "`/v1/uploads/{id}`.", schema: { type: "string" } } }),
          ...errors("invalid_input", "unauthorized"),
        },
      },
    },
    "/v1/uploads/{id}": {
      get: {
        operationId: "getUpload",
        tags: ["uploads"],
        summary: "Retrieve an upload",
        description: "`status` turns `uploaded` once R2 holds exactly the declared size.",
        parameters: [uploadId],
        responses: { "200": ok("The upload.", schemaRef("Upload")), ...errors("unauthorized", "not_found", "rate_limit_exceeded") },
      },
    },
    "/v1/uploads/{id}/content": {
      put: {
        operationId: "putUploadContent",
        tags: ["uploads"],
        summary: "Send an upload's bytes (the Worker's own upload target)",
        description: "The `target.url` of an upload when R2 credentials are not configured; no API key, the `token` is the authority. `Content-Length` must equal the declared size; the body is streamed into R2.",
        security: [],
        parameters: [
          uploadId,
          { name: "token", in: "query", required: true, description: "The signed claim in `target.url`.", schema: { type: "string" } },
          { name: "Content-Length", in: "header", required: true, description: "The declared size.", schema: { type: "integer" } },
        ],
        requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
        responses: { "200": ok("Stored; the upload is `uploaded`.", schemaRef("Upload")), ...errors("invalid_input", "forbidden", "not_found") },
      },
    },
    "/v1/usage": {
      get: {
        operationId: "getUsage",
        tags: ["usage"],
        summary: "This organization's plan, limits and current use, for the key's mode",
        responses: { "200": ok("Usage.", schemaRef("Usage")), ...errors("unauthorized", "rate_limit_exceeded") },
      },
    },
    "/v1/files/{token}/{name}": {
      get: {
        operationId: "downloadFile",
        tags: ["files"],
        summary: "Download an output (signed link)",
        description:
          "The links in job results; no API key. Supports `Range` (RFC 9110 §14). A link to a file in a folder (an HLS stream's playlist, a storyboard's WebVTT) is signed for the folder: `name` may be any file of it, so the relative URIs inside resolve under the same token. Any origin may read (`Access-Control-Allow-Origin: *`).",
        security: [],
        parameters: [
          { name: "token", in: "path", required: true, description: "The signed claim of the output and its expiry.", schema: { type: "string" } },
          { name: "name", in: "path", required: true, description: "The output's file name.", schema: { type: "string" } },
          { name: "Range", in: "header", required: false, schema: { type: "string", examples: ["bytes=0-1023"] } },
        ],
        responses: {
          "200": { description: "The whole file.", headers: fileHeaders(), content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
          "206": {
            description: "The requested range.",
            headers: { ...fileHeaders(), "Content-Range": { schema: { type: "string" } } },
            content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
          },
          "416": { description: "The range is outside the file.", headers: { "Content-Range": { description: "`bytes */<size>`.", schema: { type: "string" } } } },
          ...errors("forbidden", "not_found"),
        },
      },
      options: {
        operationId: "downloadFilePreflight",
        tags: ["files"],
        summary: "CORS preflight for a download from another origin",
        description: "Lets a player on any site send `Range` with its GET.",
        security: [],
        parameters: [
          { name: "token", in: "path", required: true, schema: { type: "string" } },
          { name: "name", in: "path", required: true, schema: { type: "string" } },
        ],
        responses: {
          "204": {
            description: "GET and HEAD from any origin, with a `Range` header.",
            headers: {
              "Access-Control-Allow-Origin": { schema: { type: "string", const: "*" } },
              "Access-Control-Allow-Methods": { schema: { type: "string" } },
              "Access-Control-Allow-Headers": { schema: { type: "string" } },
            },
          },
          ...anyClientError,
        },
      },
    },
    "/healthz": {
      get: {
        operationId: "getHealth",
        tags: ["meta"],
        summary: "Reachability of D1, R2, the queues and the processor, with the version",
        security: [],
        responses: {
          "200": ok("Every check passed.", schemaRef("Health")),
          "503": ok("At least one check failed.", schemaRef("Health")),
          ...anyClientError,
        },
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        tags: ["meta"],
        summary: "This document",
        security: [],
        responses: { "200": { description: "OpenAPI 3.1.", content: json({ type: "object" }) }, ...anyClientError },
      },
    },
  };
}

function fileHeaders() {
  return {
    "Content-Type": { description: "The output's media type.", schema: { type: "string" } },
    "Content-Length": { schema: { type: "integer" } },
    ETag: { schema: { type: "string" } },
    "Accept-Ranges": { schema: { type: "string", const: "bytes" } },
  };
}

/** OpenAPI query parameters from a zod object of optional or defaulted fields; objects are `name[key]=value` (deepObject). */
function queryParameters(query: z.ZodObject): JsonSchema[] {
  const schema = z.toJSONSchema(query, { io: "input", target: "draft-2020-12" }) as { properties: Record<string, JsonSchema> };
  return Object.entries(schema.properties).map(([name, { description, ...rest }]) => ({
    name,
    in: "query",
    required: false,
    ...(description ? { description } : {}),
    ...(rest.type === "object" ? { style: "deepObject", explode: true } : {}),
    schema: rest,
  }));
}

// The OpenAPI 3.1 document of the public HTTP API (GET /v1/openapi.json, rendered at
// /docs). A pure function of the contract: schemas come from openapi-schemas.ts, which
// generates them from the zod schemas; the routes from openapi-paths.ts; this file adds
// the error responses, headers, security and webhooks that docs/api.md, docs/limits.md
// and docs/webhooks.md describe, and assembles the document. The admin and dashboard
// routes are not part of the public API and are left out.
import { API_ERRORS, type ApiErrorCode } from "./errors.ts";
import { headerRef, json, paths } from "./openapi-paths.ts";
import { buildSchemaComponents, ERROR_RESPONSES, errorSchemaId, schemaRef, type JsonSchema } from "./openapi-schemas.ts";
import { workflowPaths, workflowSchemas, workflowWebhook } from "./openapi-workflows.ts";

export type OpenApiDocument = JsonSchema & { openapi: "3.1.0"; paths: Record<string, Record<string, JsonSchema>> };

const ERROR_EXAMPLE_DETAILS: Partial<Record<ApiErrorCode, { details: unknown }>> = {
  invalid_input: { details: [{ path: "options.quality", message: "Too big: expected number to be <=100" }] },
  rate_limit_exceeded: { details: { policy: "jobs-per-hour", limit: 100, window: 3600, retryAfter: 1200 } },
};

/** One response per API error code: the error body of that code, and the headers it comes with. */
function errorResponses(): Record<string, JsonSchema> {
  return Object.fromEntries(
    (Object.keys(ERROR_RESPONSES) as ApiErrorCode[]).map((code) => {
      const { when } = API_ERRORS[code];
      const headers: Record<string, unknown> = { "X-Request-Id": headerRef("X-Request-Id") };
      if (code === "rate_limit_exceeded") Object.assign(headers, { "Retry-After": headerRef("Retry-After"), "RateLimit-Policy": headerRef("RateLimit-Policy"), RateLimit: headerRef("RateLimit") });
      if (code === "idempotency_key_in_use") headers["Retry-After"] = headerRef("Retry-After");
      // tus 1.0.0: an unsupported version is answered with the versions the server speaks.
      if (code === "tus_version_unsupported") headers["Tus-Version"] = { description: "The tus versions this server speaks: `1.0.0`.", required: true, schema: { type: "string" } };
      if (code === "payload_too_large") headers["Upload-Offset"] = { description: "With a tus PATCH that ran past Upload-Length: the offset the upload reached.", schema: { type: "integer" } };
      const example = { error: { code, message: "…", ...ERROR_EXAMPLE_DETAILS[code], requestId: "4f7c2a1e-…" } };
      return [ERROR_RESPONSES[code], { description: `\`${code}\`: ${when}.`, headers, content: json(schemaRef(errorSchemaId(code)), example) }];
    }),
  );
}

const webhookHeader = (name: string, description: string, example: string) => ({ name, in: "header", required: true, description, schema: { type: "string" }, example });

/** The headers every webhook delivery is signed with (docs/webhooks.md). */
function signatureHeaders() {
  return [
    webhookHeader("x-service-timestamp", "When this attempt was signed, Unix milliseconds.", "1767225600123"),
    webhookHeader("x-service-signature", "`sha256=` + hex HMAC-SHA256(secret, `<x-service-timestamp>.<raw body>`); two space-separated values during a secret rotation.", "sha256=5d1c…"),
    webhookHeader("webhook-id", "Standard Webhooks: the delivery's id (`msg_…`), the same on every retry.", "msg_Vq3kQ0aB7xYz9TuvW1rS2dEf"),
    webhookHeader("webhook-timestamp", "Standard Webhooks: the same instant, Unix seconds.", "1767225600"),
    webhookHeader("webhook-signature", "Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`.", "v1,K5oZ…"),
  ];
}

function webhooks(): Record<string, JsonSchema> {
  return {
    jobFinished: {
      post: {
        operationId: "jobFinishedWebhook",
        summary: "A job ended (completed, failed or cancelled)",
        description:
          "POSTed to the job's `webhookUrl` with the job in the client-library dialect. Any 2xx within 15 s is success; 410 stops the delivery; anything else is retried with backoff (about 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then dead-lettered. Verify a signature over the raw body before trusting it (docs/webhooks.md).",
        parameters: signatureHeaders(),
        requestBody: { required: true, content: json(schemaRef("SdkJob")) },
        responses: {
          "2XX": { description: "Received; the delivery succeeded." },
          "410": { description: "Gone: stop this delivery without retrying." },
        },
      },
    },
    jobPlayable: {
      post: {
        operationId: "jobPlayableWebhook",
        summary: "A job's stream became playable before the job completed (videoAdaptive)",
        description:
          "POSTed once to the job's `webhookUrl` as `{type: \"job.playable\", data: <the job in the client-library dialect>}`, the job read at the attempt (`playableAt` and `playable.url` set; usually still `processing`). Signed and retried as `jobFinished`; the job's end is a delivery of its own (docs/webhooks.md).",
        parameters: signatureHeaders(),
        requestBody: { required: true, content: json(schemaRef("JobPlayableWebhook")) },
        responses: {
          "2XX": { description: "Received; the delivery succeeded." },
          "410": { description: "Gone: stop this delivery without retrying." },
        },
      },
    },
    workflowEnded: { post: { ...workflowWebhook, parameters: signatureHeaders() } },
  };
}

function headers(): Record<string, JsonSchema> {
  return {
    "X-Request-Id": { description: "The request's id: yours if you sent `x-request-id`, otherwise generated.", required: true, schema: { type: "string" } },
    "RateLimit-Policy": {
      description:
        'IETF httpapi RateLimit header fields: the policy, its quota `q` and, for a limit over time, its window `w` in seconds, such as `"jobs-per-hour";q=100;w=3600`; a limit on uploads unfinished at once has no window (`"open-uploads";q=5`). A 429 names the policy that refused it, as its `details.policy` does.',
      schema: { type: "string" },
    },
    RateLimit: { description: 'The policy\'s state: remaining `r` and seconds `t` until more, such as `"jobs-per-hour";r=99;t=3599`.', schema: { type: "string" } },
    "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
  };
}

/** The whole OpenAPI 3.1 document. Pure: the same object for the same code. */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    info: {
      title: "media-jobs",
      version: "1",
      summary: "Asynchronous media processing over HTTP.",
      // npm's "UNLICENSED" (no license is granted), as packages/client/package.json says;
      // it has no SPDX id, so the identifier is an SPDX LicenseRef.
      license: { name: "UNLICENSED", identifier: "LicenseRef-UNLICENSED" },
      description:
        "Compress video, images and PDFs; extract thumbnails, audio and frames from video. Create a job, then poll it or receive a signed webhook, and download results from short-lived signed links. Every error has the body `{error: {code, message, details?, requestId?}}`. Generated from the zod schemas in src/contract/ (docs/openapi.md).",
    },
    servers: [{ url: "/", description: "This deployment (locally http://127.0.0.1:8787)." }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "jobs", description: "Create, read, list and cancel jobs." },
      { name: "workflows", description: "One input through named steps, each a job (docs/workflows.md)." },
      { name: "templates", description: "Workflow templates: named steps kept for reuse." },
      { name: "webhooks", description: "Delivery log and redelivery of job webhooks." },
      { name: "uploads", description: "Direct uploads of inputs." },
      { name: "destinations", description: "The organization's own S3-compatible buckets, where jobs created with `store` copy their outputs." },
      { name: "usage", description: "Plan, limits and current use." },
      { name: "files", description: "Signed downloads of outputs." },
      { name: "meta", description: "Health and this document." },
    ],
    paths: { ...paths(), ...workflowPaths() },
    webhooks: webhooks(),
    components: {
      schemas: { ...buildSchemaComponents(), ...workflowSchemas() },
      responses: errorResponses(),
      headers: headers(),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "API key",
          description: "`Authorization: Bearer sk_live_…` (live jobs) or `sk_test_…` (test-mode jobs: separate quota, not billable).",
        },
      },
    },
  };
}

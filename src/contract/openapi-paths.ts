// The paths of the OpenAPI document (src/contract/openapi.ts): every public route with its
// parameters, bodies, success responses and the error responses it can give, as
// docs/api.md, docs/limits.md and docs/webhooks.md describe them. Schemas are referenced
// from openapi-schemas.ts; error responses from the document's components.
import { z } from "zod";
import { API_ERRORS, type ApiErrorCode } from "./errors.ts";
import { listJobsQuery } from "./list-jobs.ts";
import { OUTPUT_CONTENT_TYPES } from "./processor-protocol.ts";
import { TUS, UPLOADABLE_CONTENT_TYPES } from "./uploads.ts";
import { ERROR_RESPONSES, schemaRef, type JsonSchema } from "./openapi-schemas.ts";

export const json = (schema: JsonSchema, example?: unknown) => ({ "application/json": { schema, ...(example === undefined ? {} : { example }) } });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

export function errors(...codes: ApiErrorCode[]): Record<string, unknown> {
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
const destinationId = { name: "id", in: "path", required: true, description: "The destination's id (`dst_…`).", schema: { type: "string" } };
const uploadId = { name: "id", in: "path", required: true, description: "The upload's id (`upl_…`).", schema: { type: "string" } };
export const ok = (description: string, schema: JsonSchema, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { "X-Request-Id": headerRef("X-Request-Id"), ...extraHeaders },
  content: json(schema),
});

const tusHeader = (description: string, type = "string") => ({ description, schema: { type } });
const tusUploadKey = { name: "key", in: "path", required: true, description: "The upload's id after `upl_`: the URL is the `Location` its creation answered.", schema: { type: "string" } };
const tusResumable = { name: "Tus-Resumable", in: "header", required: true, description: "`1.0.0` (412 otherwise).", schema: { type: "string", enum: ["1.0.0"] } };
const uploadChecksum = { name: "Upload-Checksum", in: "header", required: false, description: "`sha1 <base64>` or `sha256 <base64>` of this request's body; a mismatch is 460 and keeps nothing.", schema: { type: "string" } };
const offsetOctetStream = { [TUS.patchContentType]: { schema: { type: "string", contentMediaType: "application/octet-stream" } } };
/** Sent on every tus answer, errors included (tus 1.0.0 core), OPTIONS too. */
const tusResumableHeader = { description: "`1.0.0`.", required: true, schema: { type: "string", const: TUS.version } };
const binary = (type: string) => ({ schema: { type: "string", contentMediaType: type } });
/** A body of any of these media types, as bytes. */
const bytesOf = (types: readonly string[]) => Object.fromEntries(types.map((type) => [type, binary(type)]));

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
    "/v1/destinations": {
      post: {
        operationId: "createDestination",
        tags: ["destinations"],
        summary: "Register a destination bucket",
        description:
          "An S3-compatible bucket (AWS S3, R2 through its S3 API with region `auto`, MinIO…) that jobs created with `store` copy their outputs to. Created only after a check: a small object written and deleted under `.media-jobs-check/`; when that fails the answer is 400 naming the field, the `problem` (`unreachable`, `bucket_missing`, `forbidden`, `error`) and the bucket's status and S3 code. The secret access key is stored encrypted and never returned (docs/destinations.md).",
        requestBody: {
          required: true,
          content: json(schemaRef("CreateDestinationRequest"), {
            name: "archive",
            endpoint: "https://s3.eu-west-1.amazonaws.com",
            bucket: "acme-media",
            region: "eu-west-1",
            accessKeyId: "AKIA…",
            secretAccessKey: "…",
          }),
        },
        responses: {
          "201": ok("Created, its check passed.", schemaRef("Destination"), { Location: { description: "`/v1/destinations/{id}`.", schema: { type: "string" } } }),
          ...errors("invalid_input", "unauthorized"),
        },
      },
      get: {
        operationId: "listDestinations",
        tags: ["destinations"],
        summary: "The organization's destinations",
        responses: { "200": ok("Newest first.", schemaRef("DestinationList")), ...errors("unauthorized", "rate_limit_exceeded") },
      },
    },
    "/v1/destinations/{id}": {
      get: {
        operationId: "getDestination",
        tags: ["destinations"],
        summary: "A destination",
        parameters: [destinationId],
        responses: { "200": ok("The destination, without its secret.", schemaRef("Destination")), ...errors("unauthorized", "not_found", "rate_limit_exceeded") },
      },
      delete: {
        operationId: "deleteDestination",
        tags: ["destinations"],
        summary: "Delete a destination",
        description: "Jobs already completed keep what was copied; a store still pending to it fails (`the destination was deleted`).",
        parameters: [destinationId],
        responses: { "204": { description: "Deleted.", headers: { "X-Request-Id": headerRef("X-Request-Id") } }, ...errors("unauthorized", "not_found") },
      },
    },
    "/v1/destinations/{id}/check": {
      post: {
        operationId: "checkDestination",
        tags: ["destinations"],
        summary: "Check a destination now",
        description: "Writes and deletes a small object; `ok: false` says which step failed and why, with the bucket's status and S3 error code.",
        parameters: [destinationId],
        responses: { "200": ok("The check's outcome.", schemaRef("DestinationCheck")), ...errors("unauthorized", "not_found") },
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
        description:
          "The `target.url` of an upload when R2 credentials are not configured; no API key, the `token` is the authority. Send `target.headers`: `Content-Type` the upload's declared `contentType` (the service keeps the declared type whatever this header says; `application/octet-stream` is taken too) and `Content-Length` equal to the declared size; the body is streamed into R2.",
        security: [],
        parameters: [
          uploadId,
          { name: "token", in: "query", required: true, description: "The signed claim in `target.url`.", schema: { type: "string" } },
          { name: "Content-Length", in: "header", required: true, description: "The declared size.", schema: { type: "integer" } },
        ],
        requestBody: { required: true, content: bytesOf([...UPLOADABLE_CONTENT_TYPES, "application/octet-stream"]) },
        responses: { "200": ok("Stored; the upload is `uploaded`.", schemaRef("Upload")), ...errors("invalid_input", "forbidden", "not_found") },
      },
    },
    "/v1/uploads/tus": {
      options: {
        operationId: "tusOptions",
        tags: ["uploads"],
        summary: "tus discovery (and CORS preflight)",
        description: "What this tus 1.0.0 server supports. No credentials; also the browser's CORS preflight for every tus request.",
        security: [],
        responses: {
          "204": {
            description: "The server's tus capabilities.",
            headers: {
              "Tus-Resumable": tusResumableHeader,
              "Tus-Version": { ...tusHeader("`1.0.0`."), required: true },
              "Tus-Extension": tusHeader("`creation,creation-with-upload,termination,expiration,checksum`."),
              "Tus-Max-Size": tusHeader("The largest upload any plan takes, in bytes (the caller's plan may take less: 413 at creation).", "integer"),
              "Tus-Checksum-Algorithm": tusHeader("`sha1,sha256`."),
            },
          },
          ...anyClientError,
        },
      },
      post: {
        operationId: "tusCreate",
        tags: ["uploads"],
        summary: "Create a resumable upload (tus creation, creation-with-upload)",
        description:
          "A tus 1.0.0 creation: the file's size in `Upload-Length`, its name and media type in `Upload-Metadata` (`filename`, `filetype`; base64 values). Authenticated with the API key or a browser upload token (`ut_…`). The upload's URL (`Location`) ends in its `upl_…` id, the id a job's `upload:upl_…` input names once it is complete. Bytes may come with the creation (`Content-Type: application/offset+octet-stream`). Counts against the plan's uploads per hour and unfinished uploads at once.",
        parameters: [
          tusResumable,
          { name: "Upload-Length", in: "header", required: true, description: "The file's size in bytes; at most the plan's largest upload.", schema: { type: "integer", minimum: 1 } },
          { name: "Upload-Metadata", in: "header", required: true, description: "`filename <base64>,filetype <base64>` (`name` and `type` are read too; without a type, the file name's extension decides).", schema: { type: "string" } },
          uploadChecksum,
        ],
        requestBody: { required: false, content: offsetOctetStream },
        responses: {
          "201": {
            description: "Created.",
            headers: {
              Location: { ...tusHeader("The upload's URL: `…/v1/uploads/tus/upl_…`."), required: true },
              "Upload-Expires": tusHeader("When the unfinished upload expires (RFC 9110 date); each PATCH moves it on."),
              "Upload-Offset": tusHeader("With bytes sent along: the offset reached.", "integer"),
              "Tus-Resumable": tusResumableHeader,
              RateLimit: headerRef("RateLimit"),
              "RateLimit-Policy": headerRef("RateLimit-Policy"),
            },
          },
          ...errors("invalid_input", "unauthorized", "forbidden", "tus_version_unsupported", "payload_too_large", "unsupported_media_type", "rate_limit_exceeded", "checksum_mismatch"),
        },
      },
    },
    "/v1/uploads/tus/tokens": {
      post: {
        operationId: "createUploadToken",
        tags: ["uploads"],
        summary: "Create a browser upload token",
        description: "A short-lived token a backend hands to a browser, which sends it as `Authorization: Bearer ut_…` on tus requests instead of the API key. It creates uploads for the key's organization and mode, at most `maxUploads` of them (403 `forbidden` past it) and none larger than `maxBytes` (413), and touches only the uploads it created. With `uploadId`, a token that finishes that resumable upload (after the page's first token expired) and creates none.",
        requestBody: { required: false, content: json(schemaRef("CreateUploadTokenRequest"), { maxUploads: 1, maxBytes: 104857600 }) },
        responses: { "201": ok("The token.", schemaRef("UploadToken")), ...errors("invalid_input", "unauthorized", "not_found", "upload_expired") },
      },
    },
    // The id's `upl_` written out: a bare `{id}` here would read as ambiguous with /v1/uploads/{id}/content.
    "/v1/uploads/tus/upl_{key}": {
      options: {
        operationId: "tusUploadOptions",
        tags: ["uploads"],
        summary: "tus discovery on an upload's URL (and CORS preflight)",
        description: "As OPTIONS /v1/uploads/tus: a browser's preflight before each PATCH, HEAD or DELETE.",
        security: [],
        parameters: [tusUploadKey],
        responses: {
          "204": { description: "The server's tus capabilities (as OPTIONS /v1/uploads/tus).", headers: { "Tus-Resumable": tusResumableHeader, "Tus-Version": { ...tusHeader("`1.0.0`."), required: true } } },
          ...anyClientError,
        },
      },
      post: {
        operationId: "tusOverride",
        tags: ["uploads"],
        summary: "PATCH, DELETE or HEAD for clients that can only POST (X-HTTP-Method-Override)",
        description: "tus core: `X-HTTP-Method-Override: PATCH` (or `DELETE`, `HEAD`) makes this POST that request, with its headers and answers.",
        parameters: [tusUploadKey, tusResumable, { name: "X-HTTP-Method-Override", in: "header", required: true, schema: { type: "string", enum: ["PATCH", "DELETE", "HEAD"] } }],
        requestBody: { required: false, content: offsetOctetStream },
        responses: {
          "200": { description: "As the HEAD it stands for: the upload's offset and length, no body.", headers: { "Upload-Offset": tusHeader("Bytes received and kept.", "integer"), "Upload-Length": tusHeader("The declared size.", "integer"), "Tus-Resumable": tusResumableHeader } },
          "204": { description: "As the PATCH or DELETE it stands for.", headers: { "Upload-Offset": tusHeader("With PATCH: the offset reached.", "integer"), "Tus-Resumable": tusResumableHeader } },
          ...errors("invalid_input", "unauthorized", "tus_version_unsupported", "not_found", "upload_offset_mismatch", "upload_expired", "payload_too_large", "unsupported_media_type", "upload_locked", "checksum_mismatch"),
        },
      },
      head: {
        operationId: "tusHead",
        tags: ["uploads"],
        summary: "A resumable upload's offset (tus core)",
        description: "Where to resume: the bytes received and kept so far.",
        parameters: [tusUploadKey, tusResumable],
        responses: {
          "200": {
            description: "The upload's state; no body.",
            headers: {
              "Upload-Offset": { ...tusHeader("Bytes received and kept.", "integer"), required: true },
              "Upload-Length": { ...tusHeader("The declared size.", "integer"), required: true },
              "Upload-Metadata": tusHeader("`filename` and `filetype`, base64."),
              "Upload-Expires": tusHeader("While unfinished: when it expires."),
              "Cache-Control": { ...tusHeader("`no-store`."), required: true },
              "Tus-Resumable": tusResumableHeader,
            },
          },
          ...errors("unauthorized", "tus_version_unsupported", "not_found", "upload_expired"),
        },
      },
      patch: {
        operationId: "tusPatch",
        tags: ["uploads"],
        summary: "Send bytes of a resumable upload (tus core, checksum)",
        description:
          "The bytes from `Upload-Offset`, which must be the offset the upload has reached (409 otherwise). Any size: the service sends R2 parts of 5 MiB and keeps the rest until the next PATCH; a body cut off midway keeps what arrived (unless it carried `Upload-Checksum`). One PATCH at a time per upload (423 meanwhile). The PATCH that brings the last byte completes the upload. Keep each PATCH under the platform's request size (100 MB).",
        parameters: [tusUploadKey, tusResumable, { name: "Upload-Offset", in: "header", required: true, schema: { type: "integer", minimum: 0 } }, uploadChecksum],
        requestBody: { required: true, content: offsetOctetStream },
        responses: {
          "204": {
            description: "Kept.",
            headers: { "Upload-Offset": { ...tusHeader("The offset reached.", "integer"), required: true }, "Upload-Expires": tusHeader("While unfinished: when it expires."), "Tus-Resumable": tusResumableHeader },
          },
          ...errors("invalid_input", "unauthorized", "tus_version_unsupported", "not_found", "upload_offset_mismatch", "upload_expired", "payload_too_large", "unsupported_media_type", "upload_locked", "checksum_mismatch"),
        },
      },
      delete: {
        operationId: "tusTerminate",
        tags: ["uploads"],
        summary: "Terminate a resumable upload (tus termination)",
        description: "Its R2 parts are aborted and its bytes removed; later requests get 410.",
        parameters: [tusUploadKey, tusResumable],
        responses: { "204": { description: "Terminated.", headers: { "Tus-Resumable": tusResumableHeader } }, ...errors("unauthorized", "tus_version_unsupported", "not_found", "upload_expired", "upload_locked") },
      },
    },
    "/v1/usage": {
      get: {
        operationId: "getUsage",
        tags: ["usage"],
        summary: "This organization's plan, limits and current use, for the key's mode",
        description: "The plan's limits on jobs, uploads and what one job may ask for (`limits.media`), the jobs created in the sliding hour, the jobs processing and queued now, and the uploads created in the hour and unfinished now. Live and test keys count apart.",
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
          "200": { description: "The whole file, as the output's own media type.", headers: fileHeaders(), content: bytesOf(OUTPUT_CONTENT_TYPES) },
          "206": {
            description: "The requested range (one range; several, or a malformed one, are answered with the whole file).",
            headers: { ...fileHeaders(), "Content-Range": { description: "`bytes <first>-<last>/<size>`.", required: true, schema: { type: "string", pattern: "^bytes \\d+-\\d+/\\d+$" } } },
            content: bytesOf(OUTPUT_CONTENT_TYPES),
          },
          "416": {
            description: "The range starts at or past the end of the file (or asks for an empty suffix); no body.",
            headers: { "X-Request-Id": headerRef("X-Request-Id"), "Content-Range": { description: "`bytes */<size>`: the file's size.", required: true, schema: { type: "string", pattern: "^bytes \\*/\\d+$" } } },
          },
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
    "Content-Type": { description: "The output's media type, one of the content types below.", required: true, schema: { type: "string", enum: [...OUTPUT_CONTENT_TYPES] } },
    "Content-Length": { required: true, schema: { type: "integer" } },
    ETag: { required: true, schema: { type: "string" } },
    "Accept-Ranges": { required: true, schema: { type: "string", const: "bytes" } },
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

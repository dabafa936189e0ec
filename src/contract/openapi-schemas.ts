// The schema components of the OpenAPI document (openapi.ts), generated from the
// contract's zod schemas by zod's own JSON Schema conversion (draft 2020-12, the dialect
// of OpenAPI 3.1). Requests are converted as zod reads them (defaults make fields
// optional, and are stated in the description), responses as the service writes them. Nothing here restates a job type's
// fields: the request dialects and the webhook payload are assembled from the same
// params and result schemas that validate requests and type the client library.
import { CHECK_PROBLEMS, createDestinationBody, destination, destinationCheck, jobStoreView } from "./destinations.ts";
import { z } from "zod";
import { createJobFields } from "./create-job.ts";
import { API_ERROR_CODES, API_ERRORS, type ApiErrorCode } from "./errors.ts";
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_TRIGGERS } from "./enums.ts";
import { httpJob, jobError, JOB_STATUSES } from "./job.ts";
import { JOB_TYPE_HTTP_NAMES, JOB_TYPES, type JobType } from "./names.ts";
import { jobTypes } from "./registry.ts";
import { createdUpload, createUploadRequest, createUploadTokenRequest, upload, uploadTokenCreated } from "./uploads.ts";
import { usage } from "./usage.ts";

export type JsonSchema = { [key: string]: unknown };

export const schemaRef = (id: string): JsonSchema => ({ $ref: `#/components/schemas/${id}` });

/** The name of each error code's body in components.schemas, and of its response in components.responses (openapi.ts). */
export const ERROR_RESPONSES: Record<ApiErrorCode, string> = {
  invalid_input: "InvalidInput",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "NotFound",
  idempotency_key_in_use: "IdempotencyKeyInUse",
  upload_offset_mismatch: "UploadOffsetMismatch",
  workflow_not_ended: "WorkflowNotEnded",
  upload_expired: "UploadExpired",
  tus_version_unsupported: "TusVersionUnsupported",
  payload_too_large: "PayloadTooLarge",
  unsupported_media_type: "UnsupportedMediaType",
  idempotency_key_reused: "IdempotencyKeyReused",
  upload_locked: "UploadLocked",
  rate_limit_exceeded: "RateLimited",
  checksum_mismatch: "ChecksumMismatch",
  internal_error: "InternalError",
};

/** The component of a code's error body: `not_found` → `NotFoundError`, `internal_error` → `InternalError`. */
export const errorSchemaId = (code: ApiErrorCode) => ERROR_RESPONSES[code].replace(/(?<!Error)$/, "Error");

/** `compressImage` → `CompressImage`, the prefix of that type's component names. */
export const componentPrefix = (type: JobType) => type[0]!.toUpperCase() + type.slice(1);

// ---- Requests (converted with io: "input") ----------------------------------------------

function requestComponents(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const type of JOB_TYPES) registry.add(jobTypes[type].params, { id: `${componentPrefix(type)}Params` });
  registry.add(createJobFields, { id: "CreateJobEnvelope" });
  registry.add(createUploadRequest, { id: "CreateUploadRequest" });
  registry.add(createUploadTokenRequest, { id: "CreateUploadTokenRequest" });
  registry.add(createDestinationBody, { id: "CreateDestinationRequest" });
  const converted = convert(registry, "input");
  const { CreateJobEnvelope: envelope, ...schemas } = converted;
  const envelopeProperties = envelope!.properties as Record<string, JsonSchema>;

  const variants: JsonSchema[] = [];
  for (const type of JOB_TYPES) {
    const prefix = componentPrefix(type);
    const params = schemas[`${prefix}Params`]!;
    const { url, ...optionProperties } = params.properties as Record<string, JsonSchema>;
    const required = (params.required as string[] | undefined)?.filter((name) => name !== "url") ?? [];
    const { required: _required, ...paramsRest } = params;
    schemas[`${prefix}Options`] = {
      ...paramsRest,
      description: `The HTTP dialect's \`options\` of a ${JOB_TYPE_HTTP_NAMES[type]} job: its params other than \`url\`.`,
      properties: optionProperties,
      ...(required.length ? { required } : {}),
    };
    const typeName = { type: "string", enum: [JOB_TYPE_HTTP_NAMES[type], type], description: "Either spelling of the job type." };
    schemas[`Create${prefix}Request`] = {
      type: "object",
      description: `Creates a ${JOB_TYPE_HTTP_NAMES[type]} job (HTTP dialect): the input URL in \`input\`, the other params in \`options\`.`,
      properties: {
        type: typeName,
        input: { ...url, description: "The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads." },
        options: schemaRef(`${prefix}Options`),
        ...envelopeProperties,
      },
      required: ["type", "input"],
      additionalProperties: false,
    };
    schemas[`Create${prefix}SdkRequest`] = {
      type: "object",
      description: `Creates a ${type} job (client-library dialect): every param, \`url\` included, in \`params\`.`,
      properties: { type: typeName, params: schemaRef(`${prefix}Params`), ...envelopeProperties },
      required: ["type", "params"],
      additionalProperties: false,
    };
    variants.push(schemaRef(`Create${prefix}Request`), schemaRef(`Create${prefix}SdkRequest`));
  }
  schemas.CreateJobRequest = {
    description: "Either dialect of a create, with either spelling of `type`. Unknown fields anywhere are refused.",
    oneOf: variants,
  };
  return schemas;
}

// ---- Responses and webhooks (converted with io: "output") --------------------------------

const fieldIssue = z.object({
  path: z.string().describe("The field as the request named it, such as `options.quality` or `params.url`."),
  message: z.string(),
  // A destination whose check failed (POST /v1/destinations) says how, beside the field.
  problem: z.enum(CHECK_PROBLEMS).optional().describe("A destination's failed check: `unreachable`, `bucket_missing`, `forbidden` or `error`."),
  status: z.int().nullable().optional().describe("A destination's failed check: the bucket's HTTP status, null when it did not answer."),
  code: z.string().nullable().optional().describe("A destination's failed check: the bucket's S3 error code (`InvalidAccessKeyId`, `NoSuchBucket`…)."),
});

const rateLimitDetails = z.object({
  policy: z
    .string()
    .describe("The limit that refused the request, as the RateLimit-Policy and RateLimit headers name it: `jobs-per-hour`, `uploads-per-hour`, `open-uploads` (resumable uploads unfinished at once) or `reads`."),
  limit: z.int().describe("What the limit allows: jobs, uploads or reads per window, or (`open-uploads`) unfinished uploads at once."),
  window: z.int().optional().describe("The window in seconds, for a limit over time; absent for `open-uploads`, a limit on uploads at once."),
  retryAfter: z.int().describe("Seconds until a retry can succeed (Retry-After)."),
});

const sizeLimitDetails = z.object({
  limit: z.int().describe("The largest size allowed, in bytes: the plan's largest upload, or the upload token's `maxBytes`."),
});

/** The details an error code comes with: field problems for 400 (none when the body could not be read at all), the size limit for a tus creation's 413, the limit for 429. */
const errorDetails: Partial<Record<ApiErrorCode, z.ZodType>> = {
  invalid_input: z.array(fieldIssue).optional().describe("Each problem with its field."),
  rate_limit_exceeded: rateLimitDetails,
  payload_too_large: sizeLimitDetails.optional().describe("With a tus creation whose Upload-Length is over a limit: that limit."),
};

/**
 * The error body of one code, closed and whole: `{error: {code, message, details?, requestId?}}`
 * with that code. Each response names its own body rather than narrowing a shared one
 * with `allOf`, whose closed parts would refuse each other's fields (a validator that
 * closes objects, such as Redocly's example check, would refuse every real error).
 */
const errorBodyOf = (code: ApiErrorCode) =>
  z.object({
    error: z.object({
      code: z.literal(code),
      message: z.string().describe("What went wrong, in words meant for the developer."),
      ...(errorDetails[code] ? { details: errorDetails[code] } : {}),
      requestId: z.string().optional().describe("The request's x-request-id; quote it when asking for help."),
    }),
  });

const httpJobOf = (type: JobType) =>
  httpJob.extend({
    type: z.literal(JOB_TYPE_HTTP_NAMES[type]),
    result: jobTypes[type].result.optional().describe("Completed jobs only. Every `url` is a signed link valid for one hour, with `expiresAt` beside it."),
  });

const httpJobs = Object.fromEntries(JOB_TYPES.map((type) => [type, httpJobOf(type)])) as Record<JobType, ReturnType<typeof httpJobOf>>;
const anyJob = z.discriminatedUnion("type", JOB_TYPES.map((type) => httpJobs[type]) as [ReturnType<typeof httpJobOf>, ...ReturnType<typeof httpJobOf>[]]);

const sdkJobBase = httpJob.omit({ type: true, status: true, result: true, error: true }).extend({
  error: z.string().nullable().describe("The failure's message when failed, otherwise null."),
  errorCode: jobError.shape.code.nullable().describe("The failure's code when failed, otherwise null."),
});

const sdkCompletedJobOf = (type: JobType) =>
  sdkJobBase.extend({
    type: z.literal(type),
    status: z.literal("completed"),
    ...(jobTypes[type].result as z.ZodObject).shape,
  });

const sdkUnfinishedJob = sdkJobBase.extend({
  type: z.enum(JOB_TYPES as [JobType, ...JobType[]]),
  status: z.enum(["pending", "processing", "failed", "cancelled"]),
});

const createdJob = httpJob
  .pick({ id: true, type: true, priority: true, createdAt: true })
  .extend({ status: z.literal("queued") });

const jobList = z.object({
  data: z.array(anyJob),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  hasMore: z.boolean(),
});

const cancelResult = z.union([
  z.object({ success: z.literal(true), jobId: z.string() }),
  z.object({ success: z.literal(false), jobId: z.string(), status: z.enum(JOB_STATUSES).describe("The job had already finished in this state.") }),
]);

const deletedJob = z.object({ id: z.string(), deleted: z.literal(true) });


const iso = z.string().describe("ISO 8601 UTC.");
const webhookDelivery = z.object({
  id: z.string().describe("`msg_…`, sent as `webhook-id`; the same on every retry."),
  jobId: z.string(),
  trigger: z.enum(WEBHOOK_TRIGGERS),
  url: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attemptCount: z.int(),
  createdAt: iso,
  lastAttemptAt: iso.nullable(),
  nextAttemptAt: iso.nullable().describe("When the next attempt is due while pending."),
  completedAt: iso.nullable(),
  attempts: z.array(
    z.object({
      attempt: z.int(),
      at: iso,
      statusCode: z.int().nullable().describe("The receiver's status; null when there was no answer."),
      error: z.string().nullable(),
      latencyMs: z.int(),
    }),
  ).describe("Newest first."),
});

/** GET /healthz (src/routes/health.ts); each check also carries details of its own. */
const health = z.object({
  ok: z.boolean(),
  version: z.string(),
  checks: z.record(z.string(), z.looseObject({ ok: z.boolean() })).describe("d1, r2, processor and queues, each with `ok`, and `ms` and `error` when probed."),
});

function responseComponents(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const type of JOB_TYPES) {
    registry.add(jobTypes[type].result, { id: `${componentPrefix(type)}Result` });
    registry.add(httpJobs[type], { id: `${componentPrefix(type)}Job` });
  }
  const sdkCompleted = JOB_TYPES.map((type) => {
    const schema = sdkCompletedJobOf(type);
    registry.add(schema, { id: `${componentPrefix(type)}CompletedSdkJob` });
    return schema;
  });
  registry.add(sdkUnfinishedJob, { id: "UnfinishedSdkJob" });
  const sdkUnion = z.union([...sdkCompleted, sdkUnfinishedJob]);
  registry.add(sdkUnion, { id: "SdkJob" });
  registry.add(anyJob, { id: "Job" });
  registry.add(z.object({ type: z.literal("job.playable"), data: sdkUnion }), { id: "JobPlayableWebhook" });
  registry.add(jobError, { id: "JobFailure" });
  registry.add(createdJob, { id: "CreatedJob" });
  registry.add(jobList, { id: "JobList" });
  registry.add(cancelResult, { id: "CancelResult" });
  registry.add(deletedJob, { id: "DeletedJob" });
  registry.add(upload, { id: "Upload" });
  registry.add(createdUpload, { id: "CreatedUpload" });
  registry.add(uploadTokenCreated, { id: "UploadToken" });
  registry.add(usage, { id: "Usage" });
  registry.add(webhookDelivery, { id: "WebhookDelivery" });
  registry.add(z.object({ data: z.array(webhookDelivery).describe("Newest first.") }), { id: "WebhookDeliveryList" });
  registry.add(jobStoreView, { id: "JobStore" });
  registry.add(destination, { id: "Destination" });
  registry.add(z.object({ data: z.array(destination).describe("Newest first.") }), { id: "DestinationList" });
  registry.add(destinationCheck, { id: "DestinationCheck" });
  registry.add(fieldIssue, { id: "FieldIssue" });
  registry.add(rateLimitDetails, { id: "RateLimitDetails" });
  registry.add(sizeLimitDetails, { id: "SizeLimitDetails" });
  const errorBodies = API_ERROR_CODES.map((code) => {
    const schema = errorBodyOf(code);
    registry.add(schema, { id: errorSchemaId(code) });
    return schema;
  });
  registry.add(z.union(errorBodies), { id: "Error" });
  registry.add(health, { id: "Health" });
  const schemas = convert(registry, "output");

  schemas.Job = {
    ...schemas.Job,
    description: "A job in the HTTP dialect, by type. `result` on completed jobs only, `error` on failed jobs only.",
    discriminator: { propertyName: "type", mapping: Object.fromEntries(JOB_TYPES.map((t) => [JOB_TYPE_HTTP_NAMES[t], schemaRef(`${componentPrefix(t)}Job`).$ref])) },
  };
  // The variants exclude each other (type and status), so say so: oneOf rather than zod's anyOf.
  const { anyOf: sdkVariants, ...sdkJob } = schemas.SdkJob!;
  schemas.SdkJob = {
    ...sdkJob,
    oneOf: sdkVariants,
    description:
      "A job in the client-library dialect (the webhook payload): camelCase `type`, `pending` for queued, result fields at the root on completed jobs, `error` as the failure's message with `errorCode` beside it.",
  };
  // anyOf as zod writes it, not oneOf: the codes exclude each other, but one level down
  // (error.code), where linters cannot see it.
  schemas.Error = { ...schemas.Error, description: "Every error body, by code: " + API_ERROR_CODES.map((code) => `${API_ERRORS[code].status} \`${code}\``).join(", ") + "." };
  return schemas;
}

/**
 * A request field's default goes into its description, not a `default` keyword: generators
 * such as openapi-typescript (option `defaultNonNullable`, on by default) make every property
 * with a `default` required unless its schema sits inline in a request body, and ours are
 * shared components. The field stays optional (`required` leaves it out) and the default
 * stays documented.
 */
function describeDefault({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (!("default" in jsonSchema)) return;
  const said = `Default: \`${JSON.stringify(jsonSchema.default)}\`.`;
  jsonSchema.description = typeof jsonSchema.description === "string" ? `${jsonSchema.description} ${said}` : said;
  delete jsonSchema.default;
}

/** Converts every schema of a registry, with `$ref`s between them pointing into components. */
function convert(registry: z.core.$ZodRegistry<{ id: string }>, io: "input" | "output"): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    uri: (id) => schemaRef(id).$ref as string,
    ...(io === "input" ? { override: describeDefault } : {}),
  });
  if ("__shared" in schemas) throw new Error("openapi: a schema was extracted to __shared; give it an id in the registry");
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      // Components are embedded, not standalone documents: drop the dialect and the fragment-only $id.
      const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  );
}

/** components.schemas of the document: every job type's params, options, results and jobs, and every body. */
export function buildSchemaComponents(): Record<string, JsonSchema> {
  return { ...requestComponents(), ...responseComponents() };
}

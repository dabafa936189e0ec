// Public types of the client library: the job, its parts and codes, in plain TypeScript so
// the published declarations stand alone (no zod); calls.ts has the calls' options and
// answers. Built from contract.gen.ts, which openapi-typescript generates from
// the OpenAPI document, itself generated from the contract's zod schemas (src/contract/).
// packages/client/test/contract-types.test.ts and types.test-d.ts keep them equal to the contract.
import type { JobType as ContractJobType } from "../../../src/contract/names.ts";
import type { components } from "./contract.gen.ts";

type Schemas = components["schemas"];

type SdkJobOf<T extends JobType> =
  | (Omit<Schemas["UnfinishedSdkJob"], "type"> & { type: T })
  | Schemas[`${Capitalize<T>}CompletedSdkJob`];

/**
 * A job in the client dialect, discriminated by `type` and then `status`: a completed job
 * has its type's result fields at the root.
 *
 * @example
 * ```ts
 * function summary(job: SdkJob): string {
 *   if (job.status === "failed") return `${job.errorCode}: ${job.error}`;
 *   if (job.type === "compressImage" && job.status === "completed") return `${job.width}×${job.height}`;
 *   return `${job.status} ${job.progress ?? 0}%`;
 * }
 * ```
 */
export type SdkJob = { [T in JobType]: SdkJobOf<T> }[JobType];

/**
 * A job's status in the client dialect (`pending` where the HTTP API says `queued`).
 *
 * @example
 * ```ts
 * const done = (status: SdkJobStatus) => status === "completed" || status === "failed" || status === "cancelled";
 * ```
 */
export type SdkJobStatus = Schemas["UnfinishedSdkJob"]["status"] | "completed";

/**
 * A job type name, such as `compressImage` or `videoThumbnail` (the union names every type;
 * the service's docs/job-types.md describes each).
 *
 * @example
 * ```ts
 * const type: JobType = "videoThumbnail";
 * ```
 */
export type JobType = ContractJobType;

/**
 * The params a job type accepts (optional fields have server-side defaults).
 *
 * @example
 * ```ts
 * const params: JobParamsInput<"compressVideo"> = { url: "https://example.com/a.mov", codec: "h265", maxWidth: 1280 };
 * ```
 */
export type JobParamsInput<T extends JobType = JobType> = { [K in T]: Schemas[`${Capitalize<K>}Params`] }[T];

/**
 * The result fields of a job type, found at the root of a completed job.
 *
 * @example
 * ```ts
 * const saved = (result: JobResult<"extractAudio">) => db.save({ url: result.url, seconds: result.duration });
 * ```
 */
export type JobResult<T extends JobType = JobType> = { [K in T]: Schemas[`${Capitalize<K>}Result`] }[T];

/**
 * Why a job failed (`errorCode` of a failed job), such as `unsupported_media`.
 *
 * @example
 * ```ts
 * const userFixable = (code: JobErrorCode) => code === "unsupported_media" || code === "corrupt_media";
 * ```
 */
export type JobErrorCode = Schemas["JobFailure"]["code"];

/**
 * `ApiError.code`: a code of the service's error body, `invalid_response` for a success
 * that is not JSON, or `http_<status>` for an error answer that is not the service's
 * (a proxy's page, say).
 *
 * @example
 * ```ts
 * const retryLater = (code: ApiErrorCode) => code === "rate_limit_exceeded" || code === "idempotency_key_in_use";
 * ```
 */
export type ApiErrorCode = Schemas["Error"]["error"]["code"] | "invalid_response" | `http_${number}`;

/**
 * What `getUsage` returns: the plan, its limits and the current use, for the key's mode.
 *
 * @example
 * ```ts
 * const { window, limits }: Usage = await client.getUsage();
 * console.log(`${window.remaining} of ${limits.jobsPerHour} jobs left this hour`);
 * ```
 */
export type Usage = Schemas["Usage"];

/**
 * One webhook delivery of a job, with every attempt, newest first.
 *
 * @example
 * ```ts
 * const failing = (d: WebhookDelivery) => d.attempts.filter((a) => a.statusCode === null || a.statusCode >= 400);
 * ```
 */
export type WebhookDelivery = Schemas["WebhookDelivery"];

/**
 * The job of one type, in any status.
 *
 * @example
 * ```ts
 * function describe(job: JobOf<"compressImage">) {
 *   return job.status === "completed" ? `${job.width}×${job.height}` : job.status;
 * }
 * ```
 */
export type JobOf<T extends JobType> = Extract<SdkJob, { type: T }>;

/**
 * A completed job of one type, with its result fields at the root.
 *
 * @example
 * ```ts
 * const show = (job: CompletedJob<"videoThumbnail">) => `<img src="${job.url}" width="${job.width}">`;
 * ```
 */
export type CompletedJob<T extends JobType = JobType> = Extract<SdkJob, { type: T; status: "completed" }>;

/**
 * A destination: an S3-compatible bucket of your organization that jobs created with
 * `store` copy their outputs to (docs/destinations.md). Its secret is never returned: only
 * its last 4 characters.
 *
 * @example
 * ```ts
 * const { id, bucket, secretAccessKeyLast4 }: Destination = await client.getDestination("dst_…");
 * ```
 */
export type Destination = Schemas["Destination"];

/** What `createDestination` takes; `forcePathStyle` defaults to false. */
export type CreateDestinationInput = Schemas["CreateDestinationRequest"];

/**
 * A destination's check: `ok`, or the failing step, the `problem` (`unreachable`,
 * `bucket_missing`, `forbidden`, `error`), and the bucket's status and S3 error code.
 */
export type DestinationCheck = Schemas["DestinationCheck"];

/** A job's copy to its destination, each output with its key, size, ETag and status. */
export type JobStore = Schemas["JobStore"];

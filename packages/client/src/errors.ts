// Every error the client library throws. Callers can tell the service's answer (ApiError)
// from a failed connection (ConnectionError), a wait that ran out (TimeoutError) and a
// webhook that must not be trusted (WebhookVerificationError).
import type { ApiErrorCode, SdkJob } from "./types.ts";

/**
 * Base class of every error this library throws, so one `instanceof` catches them all.
 *
 * @example
 * ```ts
 * try {
 *   await client.getJob("job_123");
 * } catch (error) {
 *   if (error instanceof MediaJobsError) console.error(error.name, error.message);
 * }
 * ```
 */
export class MediaJobsError extends Error {
  override name = "MediaJobsError";
}

/**
 * Fields of an {@link ApiError}; useful to build one in a test of your error handling.
 *
 * @example
 * ```ts
 * const init: ApiErrorInit = { status: 404, code: "not_found", message: "no such job" };
 * const fakeFailure = new ApiError(init);
 * ```
 */
export interface ApiErrorInit {
  status: number;
  code: ApiErrorCode;
  message: string;
  details?: unknown;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  headers?: Headers | undefined;
}

/**
 * The service answered with an HTTP error: `{"error": {code, message, details?}}` (docs/api.md, "Errors").
 * A body that is not that shape still gives an ApiError, with `code` `http_<status>`.
 *
 * @example
 * ```ts
 * try {
 *   await client.enqueueJob({ type: "compressImage", params: { url } });
 * } catch (error) {
 *   if (error instanceof ApiError && error.code === "rate_limit_exceeded") {
 *     console.log(`quota reached, retry in ${error.retryAfter} s (request ${error.requestId})`);
 *   } else throw error;
 * }
 * ```
 */
export class ApiError extends MediaJobsError {
  override name = "ApiError";
  /** HTTP status, such as 400 or 429. */
  readonly status: number;
  /** Lower snake_case code, such as `invalid_input`, `not_found`, `rate_limit_exceeded`, or `http_<status>`. */
  readonly code: ApiErrorCode;
  /** Extra information: the field paths of an `invalid_input`, the limits of a 429, … */
  readonly details: unknown;
  /** The request's id (`x-request-id`), to quote when asking for support. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it said so. */
  readonly retryAfter: number | undefined;
  /** The response's headers. */
  readonly headers: Headers | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }
}

/**
 * The request never got an HTTP answer: the network failed or the per-request timeout
 * passed, on every attempt.
 *
 * @example
 * ```ts
 * try {
 *   await client.getJob(jobId);
 * } catch (error) {
 *   if (error instanceof ConnectionError) console.error("service unreachable:", error.cause);
 * }
 * ```
 */
export class ConnectionError extends MediaJobsError {
  override name = "ConnectionError";
}

/**
 * `waitForJob` or `enqueueAndWait` gave up before the job finished. The job itself keeps
 * running; `job` is the last state seen.
 *
 * @example
 * ```ts
 * try {
 *   await client.waitForJob(jobId, { timeout: 10_000 });
 * } catch (error) {
 *   if (error instanceof TimeoutError) console.log(`still ${error.job?.status}, check later`);
 * }
 * ```
 */
export class TimeoutError extends MediaJobsError {
  override name = "TimeoutError";
  /** The job being waited for. */
  readonly jobId: string;
  /** The job as last polled, if any poll succeeded. */
  readonly job: SdkJob | undefined;

  constructor(message: string, jobId: string, job: SdkJob | undefined) {
    super(message);
    this.jobId = jobId;
    this.job = job;
  }
}

/**
 * A webhook request failed verification: missing headers, a stale timestamp, a signature
 * that matches none of the secrets, or a parsed object where the raw body was needed.
 * Answer such a request with 400 and do not act on it.
 *
 * @example
 * ```ts
 * try {
 *   const job = await verifyWebhook(rawBody, req.headers, secret);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return res.status(400).send(error.message);
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends MediaJobsError {
  override name = "WebhookVerificationError";
}

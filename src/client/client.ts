// The client: speaks the HTTP dialect on the wire and hands back the SDK dialect
// (docs/sdk.md), mapped in one place, `toSdkJob`. Configuration is checked once, here.
import { toSdkJob, toSdkStatus } from "../contract/dialects.ts";
import type { HttpJob, JobStatus } from "../contract/job.ts";
import type { JobType } from "../contract/names.ts";
import { MediaJobsError } from "./errors.ts";
import { createTransport, defaultSleep, jobPath, type Transport } from "./http.ts";
import { checkBaseUrl, DEFAULT_BASE_URL, globalFetch, newIdempotencyKey } from "./config.ts";
import { readEnv } from "./env.ts";
import { fetchPage, JobList } from "./list.ts";
import { TIMINGS } from "./timings.ts";
import { waitForJob } from "./wait.ts";
import { describeSource, putContent, type CreatedUpload, type CreateUploadInput, type Upload, type UploadFileOptions, type UploadSource } from "./uploads.ts";
import type {
  CancelJobResult,
  ClientOptions,
  EnqueuedJob,
  EnqueueJobInput,
  FetchLike,
  JobOf,
  ListJobsOptions,
  SdkJob,
  Usage,
  WaitOptions,
  WebhookDelivery,
} from "./types.ts";
import { verifyWebhook, type RawBody, type VerifyWebhookOptions, type WebhookHeaders, type WebhookPayload } from "./webhooks.ts";

export { DEFAULT_BASE_URL };

const DEFAULT_MAX_RETRIES = 2;

/**
 * Per-call options.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * await client.getJob(jobId, { signal: controller.signal });
 * ```
 */
export interface CallOptions {
  /** Aborts the call, retries included. */
  signal?: AbortSignal;
}

/**
 * Options of `enqueueJob`.
 *
 * @example
 * ```ts
 * await client.enqueueJob(input, { idempotencyKey: `upload-${upload.id}` });
 * ```
 */
export interface EnqueueOptions extends CallOptions {
  /**
   * Makes the create safe to repeat across your own retries or restarts: the same key and
   * body within 24 h return the first job. Default: a fresh UUID per call, reused by the
   * client's own retries.
   */
  idempotencyKey?: string;
}

interface HttpCreated {
  id: string;
  type: string;
  status: JobStatus;
  createdAt: string;
  priority: number;
}

interface HttpCancelled {
  success: boolean;
  jobId: string;
  status?: JobStatus;
}



/**
 * The media-jobs API client. Works wherever `fetch` does: Node 18+, Deno, Bun, browsers
 * and Workers. Keep API keys on the server: a browser would expose them.
 *
 * @example
 * ```ts
 * import { MediaJobsClient } from "@media-jobs/client";
 *
 * const client = new MediaJobsClient(); // MEDIA_JOBS_API_KEY, MEDIA_JOBS_BASE_URL
 * const job = await client.enqueueAndWait(
 *   { type: "compressImage", params: { url: "https://example.com/photo.jpg", quality: 70 } },
 *   { onProgress: (j) => console.log(j.status, j.progress) },
 * );
 * if (job.status === "completed") console.log(job.url, job.width, job.height, job.compressionRatio);
 * else console.error(job.errorCode, job.error);
 * ```
 */
export class MediaJobsClient {
  /** The base URL requests go to, without a trailing slash. */
  readonly baseUrl: string;
  readonly #request: Transport;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #timeout: number;
  readonly #fetch: FetchLike;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? readEnv("MEDIA_JOBS_API_KEY");
    if (!apiKey) {
      throw new MediaJobsError(
        "No API key: pass { apiKey } to new MediaJobsClient(), or set the MEDIA_JOBS_API_KEY environment variable",
      );
    }
    this.baseUrl = checkBaseUrl(options.baseUrl ?? readEnv("MEDIA_JOBS_BASE_URL") ?? DEFAULT_BASE_URL);
    const timeout = options.timeout ?? TIMINGS.requestTimeoutMs;
    if (!(timeout > 0 && Number.isFinite(timeout))) {
      throw new MediaJobsError(`timeout must be a positive number of milliseconds, got ${timeout}`);
    }
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) {
      throw new MediaJobsError(`maxRetries must be a whole number ≥ 0, got ${maxRetries}`);
    }
    this.#sleep = options.sleep ?? defaultSleep;
    this.#now = options.now ?? Date.now;
    this.#timeout = timeout;
    this.#fetch = options.fetch ?? globalFetch();
    this.#request = createTransport({
      apiKey,
      baseUrl: this.baseUrl,
      timeout,
      maxRetries,
      fetch: this.#fetch,
      sleep: this.#sleep,
      random: Math.random,
      now: this.#now,
    });
  }

  /**
   * Creates a job and returns at once; the job waits `pending` for a processing slot. An
   * `Idempotency-Key` is sent, and reused by the client's retries, so a retried create
   * never makes two jobs.
   *
   * @example
   * ```ts
   * const { jobId } = await client.enqueueJob({
   *   type: "videoThumbnail",
   *   params: { url: "https://example.com/talk.mp4", timestamp: "auto", width: 640, format: "webp" },
   *   webhookUrl: "https://example.com/webhooks/media",
   * });
   * ```
   */
  async enqueueJob<T extends JobType>(input: EnqueueJobInput<T>, options: EnqueueOptions = {}): Promise<EnqueuedJob> {
    const { type, params, priority, webhookUrl, webhookSecret, metadata } = input;
    const { data: created } = await this.#request<HttpCreated>({
      method: "POST",
      path: "/jobs",
      body: { type, params, priority, webhookUrl, webhookSecret, metadata },
      headers: { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() },
      signal: options.signal,
    });
    return { jobId: created.id, status: "pending", createdAt: created.createdAt };
  }

  /**
   * The job now: status, progress, and when completed its result fields at the root
   * (download links are signed afresh on every call and valid for an hour).
   *
   * @example
   * ```ts
   * const job = await client.getJob(jobId);
   * if (job.type === "compressVideo" && job.status === "completed") {
   *   console.log(job.url, job.duration, job.bitrate, job.compressionRatio);
   * }
   * ```
   */
  async getJob(jobId: string, options: CallOptions = {}): Promise<SdkJob> {
    const { data } = await this.#request<HttpJob>({ method: "GET", path: jobPath(jobId), signal: options.signal });
    return toSdkJob(data);
  }

  /**
   * Cancels a pending or processing job. `success` is false when the job had already
   * finished, with `status` saying how.
   *
   * @example
   * ```ts
   * const { success } = await client.cancelJob(jobId);
   * ```
   */
  async cancelJob(jobId: string, options: CallOptions = {}): Promise<CancelJobResult> {
    const { data: answer } = await this.#request<HttpCancelled>({
      method: "POST",
      path: `${jobPath(jobId)}/cancel`,
      signal: options.signal,
    });
    return {
      success: answer.success,
      jobId: answer.jobId,
      ...(answer.status === undefined ? {} : { status: toSdkStatus(answer.status) }),
    };
  }

  /**
   * Deletes a job, its webhook deliveries and its outputs, cancelling it first if it runs.
   *
   * @example
   * ```ts
   * await client.deleteJob(jobId); // { id: jobId, deleted: true }
   * ```
   */
  async deleteJob(jobId: string, options: CallOptions = {}): Promise<{ id: string; deleted: true }> {
    return (await this.#request<{ id: string; deleted: true }>({ method: "DELETE", path: jobPath(jobId), signal: options.signal })).data;
  }

  /**
   * Starts a direct upload; PUT the bytes to `target.url` with `target.headers` (or use
   * {@link MediaJobsClient.uploadFile}, which does both).
   *
   * @example
   * ```ts
   * const upload = await client.createUpload({ filename: "photo.jpg", contentType: "image/jpeg", size: 1038837 });
   * ```
   */
  async createUpload(input: CreateUploadInput, options: CallOptions = {}): Promise<CreatedUpload> {
    return (await this.#request<CreatedUpload>({ method: "POST", path: "/uploads", body: input, signal: options.signal })).data;
  }

  /**
   * An upload: `pending` until its bytes arrive, then `uploaded`.
   *
   * @example
   * ```ts
   * const { status } = await client.getUpload("upl_…");
   * ```
   */
  async getUpload(uploadId: string, options: CallOptions = {}): Promise<Upload> {
    if (typeof uploadId !== "string" || uploadId === "") {
      throw new MediaJobsError(`uploadId must be a non-empty string, got ${JSON.stringify(uploadId)}`);
    }
    return (await this.#request<Upload>({ method: "GET", path: `/uploads/${encodeURIComponent(uploadId)}`, signal: options.signal })).data;
  }

  /**
   * Uploads a Blob/File, bytes or a stream (with `size`) and returns the upload; use
   * `upload:${upload.id}` as a job's input.
   *
   * @example
   * ```ts
   * const upload = await client.uploadFile(bytes, { filename: "photo.jpg", contentType: "image/jpeg" });
   * await client.enqueueJob({ type: "compressImage", params: { url: `upload:${upload.id}` } });
   * ```
   */
  async uploadFile(source: UploadSource, options: UploadFileOptions = {}): Promise<Upload> {
    const { input, body } = describeSource(source, options);
    const created = await this.createUpload(input, { signal: options.signal });
    await putContent(this.#fetch, created, body, options.signal);
    return this.getUpload(created.id, { signal: options.signal });
  }

  /**
   * The organization's plan, its limits and the current use, for the key's mode (live or
   * test keys count apart).
   *
   * @example
   * ```ts
   * const usage = await client.getUsage();
   * console.log(`${usage.window.remaining}/${usage.limits.jobsPerHour} jobs left, ${usage.processing} processing`);
   * ```
   */
  async getUsage(options: CallOptions = {}): Promise<Usage> {
    return (await this.#request<Usage>({ method: "GET", path: "/usage", signal: options.signal })).data;
  }

  /**
   * A job's webhook deliveries, newest first, each with every attempt (status code, error,
   * latency).
   *
   * @example
   * ```ts
   * for (const delivery of await client.listWebhookDeliveries(jobId)) {
   *   console.log(delivery.id, delivery.status, delivery.attempts[0]?.statusCode);
   * }
   * ```
   */
  async listWebhookDeliveries(jobId: string, options: CallOptions = {}): Promise<WebhookDelivery[]> {
    const path = `${jobPath(jobId)}/webhooks`;
    return (await this.#request<{ data: WebhookDelivery[] }>({ method: "GET", path, signal: options.signal })).data.data;
  }

  /**
   * Sends a finished job's webhook again, as a new delivery (a new `webhook-id`, the same
   * retry schedule). The job must have a `webhookUrl`; otherwise, or while it runs, an
   * `ApiError` with code `invalid_input`.
   *
   * @example
   * ```ts
   * const delivery = await client.redeliverWebhook(jobId);
   * console.log(delivery.id, delivery.status); // "pending"
   * ```
   */
  async redeliverWebhook(jobId: string, options: CallOptions = {}): Promise<WebhookDelivery> {
    const path = `${jobPath(jobId)}/webhooks/redeliver`;
    return (await this.#request<WebhookDelivery>({ method: "POST", path, signal: options.signal })).data;
  }

  /**
   * Waits until a job is completed, failed or cancelled, and returns it; a failed job is
   * returned, not thrown. Each read asks the server to hold it until the job changes
   * (`Prefer: wait=N`); a server that does (`Preference-Applied: wait=N`) is asked again at
   * once, otherwise the job is polled every `pollInterval`, stretched while it stays
   * unchanged. Throws {@link TimeoutError} (message containing `Timeout`) when `timeout`
   * passes first; the job goes on running.
   *
   * @example
   * ```ts
   * const job = await client.waitForJob(jobId, {
   *   timeout: 120_000,
   *   onProgress: (j) => console.log(`${j.status} ${j.progress ?? 0}%`),
   * });
   * ```
   */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<SdkJob> {
    return waitForJob(
      { request: this.#request, now: this.#now, sleep: this.#sleep, attemptTimeoutMs: this.#timeout },
      jobId,
      options,
    );
  }

  /**
   * `enqueueJob` then `waitForJob`: the finished job, typed by the job's type.
   *
   * @example
   * ```ts
   * const job = await client.enqueueAndWait({ type: "extractAudio", params: { url, quality: "high" } });
   * if (job.status === "completed") console.log(job.url, job.bitrate); // "320kbps"
   * ```
   */
  async enqueueAndWait<T extends JobType>(
    input: EnqueueJobInput<T>,
    options: WaitOptions & EnqueueOptions = {},
  ): Promise<JobOf<T>> {
    const { jobId } = await this.enqueueJob(input, options);
    return (await this.waitForJob(jobId, options)) as JobOf<T>;
  }

  /**
   * Jobs, newest first, as an async iterable that fetches page after page; `page()` gets
   * one page. `status` accepts `pending` (sent as `queued`).
   *
   * @example
   * ```ts
   * for await (const job of client.listJobs({ status: "processing", limit: 100 })) {
   *   console.log(job.id, job.type, job.progress);
   * }
   * ```
   */
  listJobs(options: ListJobsOptions = {}): JobList {
    return new JobList((pageOptions) => fetchPage(this.#request, pageOptions), options);
  }

  /**
   * Same as the {@link verifyWebhook} function: checks a webhook's signature and age and
   * returns its typed payload.
   *
   * @example
   * ```ts
   * const job = await client.verifyWebhook(await request.text(), request.headers, secret);
   * ```
   */
  verifyWebhook(
    rawBody: RawBody,
    headers: WebhookHeaders,
    secret: string | readonly string[],
    options?: VerifyWebhookOptions,
  ): Promise<WebhookPayload> {
    return verifyWebhook(rawBody, headers, secret, options);
  }

}





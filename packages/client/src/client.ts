// The client: speaks the HTTP dialect on the wire and hands back the SDK dialect
// (docs/sdk.md), mapped in one place, `toSdkJob`. This file holds the jobs' methods; the
// configuration is checked once in base.ts, and uploads.ts and account.ts hold the rest.
import { toSdkJob, toSdkStatus } from "../../../src/contract/dialects.ts";
import type { HttpJob, JobStatus } from "../../../src/contract/job.ts";
import type { JobType } from "../../../src/contract/names.ts";
import { WorkflowMethods } from "./workflows.ts";
import type { CallOptions } from "./base.ts";
import { newIdempotencyKey } from "./config.ts";
import { streamJobEvents } from "./events.ts";
import { jobPath } from "./http.ts";
import { fetchPage, JobList } from "./list.ts";
import type { CancelJobResult, EnqueuedJob, EnqueueJobInput, JobEvent, ListJobsOptions, WaitOptions } from "./calls.ts";
import type { JobOf, SdkJob } from "./types.ts";
import { waitForJob } from "./wait.ts";

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
export class MediaJobsClient extends WorkflowMethods {
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
    const { type, params, priority, webhookUrl, webhookSecret, metadata, store } = input;
    const { data: created } = await this.context.request<HttpCreated>({
      method: "POST",
      path: "/jobs",
      body: { type, params, priority, webhookUrl, webhookSecret, metadata, store },
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
    const { data } = await this.context.request<HttpJob>({ method: "GET", path: jobPath(jobId), signal: options.signal });
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
    const { data: answer } = await this.context.request<HttpCancelled>({
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
    return (await this.context.request<{ id: string; deleted: true }>({ method: "DELETE", path: jobPath(jobId), signal: options.signal })).data;
  }

  /**
   * Waits until a job is completed, failed or cancelled, and returns it; a failed job is
   * returned, not thrown. Each read asks the server to hold it until the job is final
   * (`Prefer: wait=N`); a server that does (`Preference-Applied: wait=N`) is asked again at
   * once, otherwise the job is polled every `pollInterval`, stretched while it stays
   * unchanged. For each step of a job's progress as it happens, use `jobEvents`. Throws {@link TimeoutError} (message containing `Timeout`) when `timeout`
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
    return waitForJob(this.context, jobId, options);
  }

  /**
   * The job's progress as it happens, from the server's event stream: `progress` with the
   * job at each change of its status or progress (the first one is its state now), then one
   * `end` with the finished job, after which the iteration stops. The server closes each
   * connection within 60 s; the client connects again, without repeating a state already
   * seen. Stop early with `break` or the `signal`; the job goes on running.
   *
   * @example
   * ```ts
   * for await (const { event, job } of client.jobEvents(jobId, { signal: AbortSignal.timeout(600_000) })) {
   *   if (event === "progress") console.log(`${job.status} ${job.progress ?? 0}%`);
   *   else if (job.status === "completed") console.log(job.url);
   * }
   * ```
   */
  jobEvents(jobId: string, options: CallOptions = {}): AsyncIterable<JobEvent> {
    return streamJobEvents(this.context, jobId, `${jobPath(jobId)}/events`, options.signal);
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
    return new JobList((pageOptions) => fetchPage(this.context.request, pageOptions), options);
  }
}

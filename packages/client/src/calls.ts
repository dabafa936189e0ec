// The shapes of the client's calls, in plain TypeScript like types.ts: its options, and what
// its methods take and return.
import type { HttpJobType } from "../../../src/contract/names.ts";
import type { JobParamsInput, JobType, SdkJob, SdkJobStatus } from "./types.ts";

/**
 * A `fetch` function: the global one by default, or any compatible implementation.
 *
 * @example
 * ```ts
 * const loggingFetch: FetchLike = (url, init) => {
 *   console.log(init.method, url);
 *   return fetch(url, init);
 * };
 * ```
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Options of `new MediaJobsClient(…)`.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { apiKey: "sk_test_…", baseUrl: "https://media.example.com/v1", timeout: 10_000 };
 * ```
 */
export interface ClientOptions {
  /** API key (`sk_live_…` or `sk_test_…`). Default: the `MEDIA_JOBS_API_KEY` environment variable. */
  apiKey?: string;
  /** Base URL including `/v1`. Default: `MEDIA_JOBS_BASE_URL`, else `http://127.0.0.1:8787/v1`. */
  baseUrl?: string;
  /** Per-request timeout in milliseconds (each attempt). Default 30000. */
  timeout?: number;
  /** How many times a request is retried after a 429, a 5xx or a network failure. Default 2. */
  maxRetries?: number;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Waits between retries and polls. Default: a timer. Tests can pass one that returns at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock `waitForJob` measures its timeout with, in ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * What `enqueueJob` sends: a type and its params (typed per type), and optional settings.
 *
 * @example
 * ```ts
 * const input: EnqueueJobInput<"compressImage"> = {
 *   type: "compressImage",
 *   params: { url: "https://example.com/photo.jpg", quality: 70, format: "webp" },
 *   priority: 3,
 * };
 * ```
 */
export type EnqueueJobInput<T extends JobType = JobType> = {
  [K in T]: {
    type: K;
    params: JobParamsInput<K>;
    /** 1–10, lower runs first within your organization. Default 5. */
    priority?: number;
    /** Where the signed webhook goes when the job ends. */
    webhookUrl?: string;
    /** Signs this job's webhooks instead of the organization's secret (16–256 chars). */
    webhookSecret?: string;
    /** Your own key–value strings, returned with the job and filterable in `listJobs` (docs/api.md). */
    metadata?: Record<string, string>;
    /** Copies each output to one of your destinations when the job completes (docs/destinations.md). */
    store?: { destination: string; prefix?: string };
  };
}[T];

/**
 * What `enqueueJob` returns.
 *
 * @example
 * ```ts
 * const { jobId, status, createdAt }: EnqueuedJob = await client.enqueueJob(input);
 * ```
 */
export interface EnqueuedJob {
  jobId: string;
  status: "pending";
  /** ISO 8601 UTC. */
  createdAt: string;
}

/**
 * What `cancelJob` returns. `success` is false when the job had already finished; then
 * `status` says how it ended.
 *
 * @example
 * ```ts
 * const { success, status }: CancelJobResult = await client.cancelJob(jobId);
 * if (!success) console.log(`too late: the job is ${status}`);
 * ```
 */
export interface CancelJobResult {
  success: boolean;
  jobId: string;
  status?: SdkJobStatus;
}

/**
 * Options of `waitForJob` and `enqueueAndWait`.
 *
 * @example
 * ```ts
 * const options: WaitOptions = { timeout: 120_000, pollInterval: 1000, onProgress: (job) => console.log(job.progress) };
 * ```
 */
export interface WaitOptions {
  /** Give up after this many ms with a TimeoutError. Default 60000. */
  timeout?: number;
  /** Milliseconds between polls. Default 500. */
  pollInterval?: number;
  /** Called with the job after every poll, the last one included. */
  onProgress?: (job: SdkJob) => void;
  /** Stops waiting (and the request in flight) when aborted; the job keeps running. */
  signal?: AbortSignal;
}

/**
 * One event of `jobEvents`: `progress` with the job each time its status or progress
 * changes, then one `end` with the finished job (completed, failed or cancelled).
 *
 * @example
 * ```ts
 * const show = ({ event, job }: JobEvent) => (event === "end" ? `${job.status} ${job.error ?? ""}` : `${job.progress ?? 0}%`);
 * for await (const event of client.jobEvents(jobId)) console.log(show(event));
 * ```
 */
export interface JobEvent {
  /** `playable`: once, when a videoAdaptive job's stream plays before the job ends (`job.playable.url`). */
  event: "progress" | "playable" | "end";
  job: SdkJob;
}

/**
 * A status to filter lists by. `pending` and `queued` mean the same.
 *
 * @example
 * ```ts
 * const status: ListStatus = "pending";
 * ```
 */
export type ListStatus = SdkJobStatus | "queued";

/**
 * Options of `listJobs`.
 *
 * @example
 * ```ts
 * const options: ListJobsOptions = { status: "failed", limit: 100 };
 * ```
 */
export interface ListJobsOptions {
  /** Only jobs in this status. */
  status?: ListStatus;
  /** Jobs per page, 1–100. Default (server) 20. */
  limit?: number;
  /** Only jobs of this type, in either spelling (`compressImage` or `compress-image`). */
  type?: JobType | HttpJobType;
  /** Creation time bounds: a Date or Unix seconds; `gte` inclusive, `lt` exclusive. */
  created?: { gte?: Date | number; lt?: Date | number };
  /** Only jobs whose metadata has each of these exact key–value pairs. */
  metadata?: Record<string, string>;
  /** Stops the listing (and the request in flight) when aborted. */
  signal?: AbortSignal;
}

/**
 * Options of one page: those of the list, and where to start.
 *
 * @example
 * ```ts
 * const next = await client.listJobs().page({ cursor: previous.nextCursor ?? undefined });
 * ```
 */
export interface PageOptions extends ListJobsOptions {
  /** `nextCursor` of the previous page; absent for the first (newest) page. */
  cursor?: string;
}

/**
 * One page of jobs, newest first.
 *
 * @example
 * ```ts
 * const { data, hasMore, nextCursor }: JobPage = await client.listJobs({ limit: 50 }).page();
 * ```
 */
export interface JobPage {
  data: SdkJob[];
  nextCursor: string | null;
  hasMore: boolean;
}

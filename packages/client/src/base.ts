// What every method of the client stands on: its configuration, checked once, and the
// transport. The methods are grouped by resource, each group a class extending the one
// before: ClientBase ← UploadMethods (uploads.ts) ← AccountMethods (account.ts: usage,
// webhooks) ← WorkflowMethods (workflows.ts: workflows, templates) ← MediaJobsClient
// (client.ts: jobs), the one class callers construct.
import { checkBaseUrl, DEFAULT_BASE_URL, globalFetch } from "./config.ts";
import { readEnv } from "./env.ts";
import { MediaJobsError } from "./errors.ts";
import { createTransport, defaultSleep, type Transport } from "./http.ts";
import { TIMINGS } from "./timings.ts";
import type { ClientOptions, FetchLike } from "./calls.ts";

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

/** What the methods use of the client's configuration. */
export interface ClientContext {
  request: Transport;
  /** For the requests the transport does not make: resumable uploads' tus requests (uploads.ts). */
  apiKey: string;
  baseUrl: string;
  fetch: FetchLike;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  random: () => number;
  /** One request attempt's timeout, in ms. */
  timeout: number;
  maxRetries: number;
}

/** The configuration and transport of {@link MediaJobsClient}; construct that class. */
export abstract class ClientBase {
  /** The base URL requests go to, without a trailing slash. */
  readonly baseUrl: string;
  readonly #context: ClientContext;

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
    const fetch = options.fetch ?? globalFetch();
    const sleep = options.sleep ?? defaultSleep;
    const now = options.now ?? Date.now;
    const random = Math.random;
    const request = createTransport({ apiKey, baseUrl: this.baseUrl, timeout, maxRetries, fetch, sleep, random, now });
    this.#context = { request, apiKey, baseUrl: this.baseUrl, fetch, sleep, now, random, timeout, maxRetries };
  }

  /** For the method groups; a getter, so that it stays off the instance's own properties. */
  protected get context(): ClientContext {
    return this.#context;
  }
}

// One JSON request to the service with a per-attempt timeout and retries. A 429, a 5xx,
// a 409 `idempotency_key_in_use` (our own earlier attempt still running) and a network
// failure are retried with backoff, honouring Retry-After; the caller's headers (and so
// its Idempotency-Key) are the same on every attempt, so a retried create is one job.
// Requests are paced by the RateLimit header fields (docs/limits.md): once a response says
// none remain, the next request of the same kind waits for the reset instead of being
// refused.
import { ApiError, ConnectionError, MediaJobsError } from "./errors.ts";
import { TIMINGS } from "./timings.ts";
import type { ApiErrorCode, FetchLike } from "./types.ts";

export interface TransportConfig {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  fetch: FetchLike;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

export interface RequestSpec {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** A successful answer: the parsed body and the response's headers. */
export interface Answer<T> {
  data: T;
  headers: Headers;
}

export type Transport = <T>(spec: RequestSpec) => Promise<Answer<T>>;

export function createTransport(config: TransportConfig): Transport {
  const pacer = new Pacer(config);
  return async function request<T>(spec: RequestSpec): Promise<Answer<T>> {
    const url = buildUrl(config.baseUrl, spec.path, spec.query);
    const init: RequestInit = {
      method: spec.method,
      headers: {
        Accept: "application/json",
        Authorization: `Bearer ${config.apiKey}`,
        ...(spec.body === undefined ? {} : { "Content-Type": "application/json" }),
        ...spec.headers,
      },
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    };

    const scope = spec.method === "GET" ? "reads" : `${spec.method} ${spec.path}`;
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < config.maxRetries;
      const pause = pacer.pauseFor(scope);
      if (pause > 0) await config.sleep(pause, spec.signal);
      spec.signal?.throwIfAborted();
      let outcome: Attempt;
      try {
        outcome = await attemptOnce(config, url, init, spec.signal);
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (!retriesLeft) throw toConnectionError(error, spec.method, url, config.timeout);
        await config.sleep(backoff(attempt, config.random), spec.signal);
        continue;
      }

      const { response, text } = outcome;
      pacer.learn(scope, response.headers);
      if (response.ok) return { data: parseSuccess<T>(response, text), headers: response.headers };
      const error = toApiError(response, text);
      const delay = retriesLeft && isRetryable(error) ? retryDelay(error, attempt, config.random) : undefined;
      if (delay === undefined) throw error;
      await config.sleep(delay, spec.signal);
    }
  };
}

interface Attempt {
  response: Response;
  text: string;
}

class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
}

/** One fetch, body included, under the per-request timeout and the caller's signal. */
async function attemptOnce(config: TransportConfig, url: string, init: RequestInit, signal?: AbortSignal): Promise<Attempt> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), config.timeout);
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  signal?.addEventListener("abort", forward, { once: true });
  try {
    const response = await config.fetch(url, { ...init, signal: controller.signal });
    const text = await response.text();
    return { response, text };
  } catch (error) {
    // Some fetch implementations reject with a generic AbortError; report the reason we chose.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forward);
  }
}

function buildUrl(baseUrl: string, path: string, query: RequestSpec["query"]): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(key, String(value));
  }
  const qs = search.toString();
  return `${baseUrl}${path}${qs ? `?${qs}` : ""}`;
}

function toConnectionError(error: unknown, method: string, url: string, timeout: number): ConnectionError {
  if (error instanceof AttemptTimeout) {
    return new ConnectionError(`Request timed out after ${timeout} ms: ${method} ${url}`, { cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ConnectionError(`Could not reach the service: ${method} ${url}: ${reason}`, { cause: error });
}

function parseSuccess<T>(response: Response, text: string): T {
  if (text === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError({
      status: response.status,
      code: "invalid_response",
      message: `Expected JSON from the service, got ${describeBody(response, text)}`,
      requestId: response.headers.get("x-request-id") ?? undefined,
      headers: response.headers,
    });
  }
}

/** The service's `{"error": {code, message, details?}}`, or the best we can say about another body. */
export function toApiError(response: Response, text: string): ApiError {
  const headers = response.headers;
  const body = parseJson(text);
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  // A code this version does not know (a newer server) passes through as sent.
  const code = typeof error?.code === "string" ? (error.code as ApiErrorCode) : `http_${response.status}` as const;
  const message =
    typeof error?.message === "string"
      ? error.message
      : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}: ${describeBody(response, text)}`;
  const bodyRequestId = typeof error?.requestId === "string" ? error.requestId : undefined;
  return new ApiError({
    status: response.status,
    code,
    message,
    details: error?.details,
    requestId: headers.get("x-request-id") ?? bodyRequestId,
    retryAfter: parseRetryAfter(headers.get("retry-after")),
    headers,
  });
}

function isRetryable(error: ApiError): boolean {
  return error.status === 429 || error.status >= 500 || error.code === "idempotency_key_in_use";
}

/** Milliseconds to wait before the next attempt, or undefined when it is not worth waiting. */
function retryDelay(error: ApiError, attempt: number, random: () => number): number | undefined {
  if (error.retryAfter === undefined) return backoff(attempt, random);
  if (error.retryAfter > TIMINGS.maxRetryAfterS) return undefined;
  return error.retryAfter * 1000;
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, … capped at 8 s. */
function backoff(attempt: number, random: () => number): number {
  const ceiling = Math.min(TIMINGS.retryBackoffMaxMs, TIMINGS.retryBackoffBaseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * Holds requests back while the service says a policy has nothing left: per kind of
 * request (reads share one policy; each other route has its own), until the reset it gave.
 * A reset further off than `maxRetryAfterS` (an hourly quota) is not waited for: the
 * request goes and the service's 429 tells the caller when to come back.
 */
class Pacer {
  readonly #until = new Map<string, number>();
  readonly #config: TransportConfig;

  constructor(config: TransportConfig) {
    this.#config = config;
  }

  /** Milliseconds the next request of this kind should wait; 0 to go now. */
  pauseFor(scope: string): number {
    const wait = (this.#until.get(scope) ?? 0) - this.#config.now();
    return wait > 0 && wait <= TIMINGS.maxRetryAfterS * 1000 ? wait : 0;
  }

  learn(scope: string, headers: Headers): void {
    const resetS = exhaustedFor(headers);
    if (resetS === undefined) this.#until.delete(scope);
    else this.#until.set(scope, this.#config.now() + resetS * 1000);
  }
}

/**
 * Seconds until more requests are allowed, when a RateLimit header field says none remain:
 * `RateLimit: "reads";r=0;t=42` (draft-ietf-httpapi-ratelimit-headers; several policies
 * may be listed), or the older `RateLimit-Remaining: 0` with `RateLimit-Reset: 42`.
 */
export function exhaustedFor(headers: Headers): number | undefined {
  let longest: number | undefined;
  for (const item of (headers.get("ratelimit") ?? "").split(",")) {
    const remaining = /;\s*r=(\d+)/.exec(item)?.[1];
    const reset = /;\s*t=(\d+)/.exec(item)?.[1];
    if (remaining === "0" && reset !== undefined) longest = Math.max(longest ?? 0, Number(reset));
  }
  const remaining = headers.get("ratelimit-remaining")?.trim();
  const reset = headers.get("ratelimit-reset")?.trim();
  if (remaining === "0" && reset && /^\d+$/.test(reset)) longest = Math.max(longest ?? 0, Number(reset));
  return longest;
}

/** Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3); we return seconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function describeBody(response: Response, text: string): string {
  const type = response.headers.get("content-type") ?? "no content type";
  if (text === "") return `an empty body (${type})`;
  const snippet = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `${type}: ${snippet}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A timer that an AbortSignal can cut short (rejecting with the signal's reason). */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The path of a job, its id checked. */
export function jobPath(jobId: string): string {
  if (typeof jobId !== "string" || jobId === "") {
    throw new MediaJobsError(`jobId must be a non-empty string, got ${JSON.stringify(jobId)}`);
  }
  return `/jobs/${encodeURIComponent(jobId)}`;
}

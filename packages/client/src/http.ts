// One JSON request to the service with a per-attempt timeout and retries. A 429, a 5xx,
// a 409 `idempotency_key_in_use` (our own earlier attempt still running) and a network
// failure are retried with backoff, honouring Retry-After; the caller's headers (and so
// its Idempotency-Key) are the same on every attempt, so a retried create is one job.
// Requests are paced by the RateLimit header fields (docs/limits.md): once a response says
// none remain, the next request of the same kind waits for the reset instead of being
// refused.
import { ApiError, ConnectionError, MediaJobsError } from "./errors.ts";
import { Pacer, parseRetryAfter } from "./pacing.ts";
import { TIMINGS } from "./timings.ts";
import type { FetchLike } from "./calls.ts";
import type { ApiErrorCode } from "./types.ts";

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
  method: "GET" | "POST" | "PATCH" | "DELETE";
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

export interface Transport {
  /** The request, with its retries and pacing: the answer's parsed JSON body. */
  <T>(spec: RequestSpec): Promise<Answer<T>>;
  /**
   * The same, but a success comes back with its body unread, for the caller to stream (the
   * attempt's timeout then covers only the response's headers).
   */
  stream(spec: RequestSpec): Promise<Response>;
}

export function createTransport(config: TransportConfig): Transport {
  const pacer = new Pacer(config.now);
  const send = async (spec: RequestSpec, streamBody: boolean): Promise<Attempt> => {
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
        outcome = await attemptOnce(config, url, init, streamBody, spec.signal);
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (!retriesLeft) throw toConnectionError(error, spec.method, url, config.timeout);
        await config.sleep(backoff(attempt, config.random), spec.signal);
        continue;
      }

      const { response, text } = outcome;
      pacer.learn(scope, response.headers);
      if (response.ok) return outcome;
      const error = toApiError(response, text);
      const delay = retriesLeft && isRetryable(error) ? retryDelay(error, attempt, config.random) : undefined;
      if (delay === undefined) throw error;
      await config.sleep(delay, spec.signal);
    }
  };
  const request = async <T>(spec: RequestSpec): Promise<Answer<T>> => {
    const { response, text } = await send(spec, false);
    return { data: parseSuccess<T>(response, text), headers: response.headers };
  };
  return Object.assign(request, { stream: async (spec: RequestSpec) => (await send(spec, true)).response });
}

interface Attempt {
  response: Response;
  text: string;
}

class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
}

/**
 * One fetch under the per-request timeout and the caller's signal, its body read, unless
 * `streamBody` leaves a success's body to the caller.
 */
async function attemptOnce(config: TransportConfig, url: string, init: RequestInit, streamBody: boolean, signal?: AbortSignal): Promise<Attempt> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), config.timeout);
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  signal?.addEventListener("abort", forward, { once: true });
  try {
    const response = await config.fetch(url, { ...init, signal: controller.signal });
    const text = streamBody && response.ok ? "" : await response.text();
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
    throw invalidResponse(response, "JSON", text);
  }
}

/** An `invalid_response` ApiError: a success whose body is not what was `expected`. */
export function invalidResponse(response: Response, expected: string, text: string): ApiError {
  return new ApiError({
    status: response.status,
    code: "invalid_response",
    message: `Expected ${expected} from the service, got ${describeBody(response, text)}`,
    requestId: response.headers.get("x-request-id") ?? undefined,
    headers: response.headers,
  });
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
export function backoff(attempt: number, random: () => number): number {
  const ceiling = Math.min(TIMINGS.retryBackoffMaxMs, TIMINGS.retryBackoffBaseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() / 2));
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

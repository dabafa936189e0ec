// One JSON request to the service with a per-attempt timeout and retries. A 429, a 5xx,
// a 409 `idempotency_key_in_use` (our own earlier attempt still running) and a network
// failure are retried with backoff, honouring Retry-After; the caller's headers (and so
// its Idempotency-Key) are the same on every attempt, so a retried create is one job.
import { ApiError, ConnectionError, type ApiErrorCode } from "./errors.ts";
import type { FetchLike } from "./types.ts";

/** Longest Retry-After we wait for inside a call; a longer one (an hourly quota) is thrown at once. */
export const MAX_RETRY_AFTER_SECONDS = 60;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8000;

export interface TransportConfig {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  fetch: FetchLike;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

export type Transport = <T>(spec: RequestSpec) => Promise<T>;

export function createTransport(config: TransportConfig): Transport {
  return async function request<T>(spec: RequestSpec): Promise<T> {
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

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < config.maxRetries;
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
      if (response.ok) return parseSuccess<T>(response, text);
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
  // A code this version does not know yet is passed through as sent (see ApiErrorCode).
  const code = typeof error?.code === "string" ? (error.code as ApiErrorCode) : (`http_${response.status}` as const);
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
  if (error.retryAfter > MAX_RETRY_AFTER_SECONDS) return undefined;
  return error.retryAfter * 1000;
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, … capped at 8 s. */
function backoff(attempt: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() / 2));
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

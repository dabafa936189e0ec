// Pacing by what the service says of its limits: the RateLimit header fields
// (docs/limits.md) hold the next request back until the reset, and Retry-After says how
// long to wait before a retry.
import { TIMINGS } from "./timings.ts";

/**
 * Holds requests back while the service says a policy has nothing left: per kind of
 * request (reads share one policy; each other route has its own), until the reset it gave.
 * A reset further off than `maxRetryAfterS` (an hourly quota) is not waited for: the
 * request goes and the service's 429 tells the caller when to come back.
 */
export class Pacer {
  readonly #until = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Milliseconds the next request of this kind should wait; 0 to go now. */
  pauseFor(scope: string): number {
    const wait = (this.#until.get(scope) ?? 0) - this.#now();
    return wait > 0 && wait <= TIMINGS.maxRetryAfterS * 1000 ? wait : 0;
  }

  learn(scope: string, headers: Headers): void {
    const resetS = exhaustedFor(headers);
    if (resetS === undefined) this.#until.delete(scope);
    else this.#until.set(scope, this.#now() + resetS * 1000);
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

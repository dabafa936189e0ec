// Every time the client waits or gives up by default, in one place (milliseconds unless
// the name says seconds). docs/sdk.md states each; tests pin the defaults.
export const TIMINGS = {
  /** Each request attempt is aborted after this long. */
  requestTimeoutMs: 30_000,
  /** `waitForJob` gives up after this long. */
  waitTimeoutMs: 60_000,
  /** `waitForJob`'s first poll interval, and its interval while the job keeps changing. */
  pollIntervalMs: 500,
  /** Each poll that finds the job unchanged stretches the interval by this factor… */
  pollBackoffFactor: 1.5,
  /** …up to this: one key can wait on about 50 jobs within the 300 reads a minute. */
  maxPollIntervalMs: 10_000,
  /** Longest `Prefer: wait` asked of the server; it must also end well inside the request timeout. */
  maxPreferWaitS: 25,
  preferWaitMarginMs: 5_000,
  /**
   * `jobEvents` drops a connection that brings nothing for this long and connects again:
   * the server ends each one within 60 s, so a silent one is broken.
   */
  eventStreamIdleMs: 90_000,
  /** Retries wait about 0.5 s, 1 s, 2 s, … up to 8 s, with jitter, unless told otherwise. */
  retryBackoffBaseMs: 500,
  retryBackoffMaxMs: 8_000,
  /** Longest Retry-After or RateLimit reset waited out inside a call; a longer one (an hourly quota) is the caller's to handle. */
  maxRetryAfterS: 60,
} as const;

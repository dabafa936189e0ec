// When a failed webhook attempt is tried again (DESIGN §6). Defined once: the consumer
// asks the queue for these delays, and wrangler.toml's `max_retries` for the webhooks
// queue is MAX_ATTEMPTS - 1, so the message is dead-lettered after the last attempt.

/** Base delay before attempt n + 1, in seconds, indexed by n - 1: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_DELAYS_S = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** The first attempt is immediate, then one per delay: 8 in all, over about 28 hours. */
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

/** Queues refuses a longer delay (Cloudflare Queues limits: 12 hours). */
export const MAX_QUEUE_DELAY_S = 12 * 3600;

/** How much each delay varies either way, so receivers that failed together are not retried together. */
export const JITTER = 0.1;

/**
 * Seconds to wait after failed attempt `attempt` (1-based), jittered by ±10 %; undefined
 * after the last attempt. `random` is in [0, 1), passed in so tests can pin it.
 */
export function retryDelaySeconds(attempt: number, random: number): number | undefined {
  const base = RETRY_DELAYS_S[attempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random));
  return Math.min(MAX_QUEUE_DELAY_S, Math.max(1, jittered));
}

// When a failed webhook attempt is tried again (docs/webhooks.md: retries). The schedule is
// TUNABLES.webhooks: the consumer asks the queue for these delays, and wrangler.toml's
// `max_retries` for the webhooks queue is maxAttempts - 1, so the message is dead-lettered
// after the last attempt.
import { TUNABLES } from "../lib/tunables.ts";

const { retryDelaysS, retryJitterRatio, maxQueueDelayS } = TUNABLES.webhooks;

/**
 * Seconds to wait after failed attempt `attempt` (1-based), jittered by ±10 %; undefined
 * after the last attempt. `random` is in [0, 1), passed in so tests can pin it.
 */
export function retryDelaySeconds(attempt: number, random: number): number | undefined {
  const base = retryDelaysS[attempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - retryJitterRatio + 2 * retryJitterRatio * random));
  return Math.min(maxQueueDelayS, Math.max(1, jittered));
}

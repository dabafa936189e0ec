// The hourly quota's verdict (a sliding window), a pure function of what the OrgLimiter
// reads from its admissions table (org-limiter.ts `admit`) and `now`.
import { TUNABLES } from "../lib/tunables.ts";

const { quotaWindowMs } = TUNABLES.limiter;

export type QuotaVerdict =
  | { ok: true; limit: number; remaining: number; resetInS: number }
  | { ok: false; limit: number; remaining: 0; retryAfterS: number };

/**
 * What the verdict needs to know of the window, which the limiter reads without loading it
 * (at most `limit` index entries): how many admissions it holds, counted up to `limit`; the
 * oldest; and the limit-th newest, whose expiry frees the next place when the window is full.
 */
export interface QuotaWindow {
  count: number;
  oldest: number | undefined;
  limitthNewest: number | undefined;
}

export function quotaVerdict(window: QuotaWindow, limit: number, now: number): QuotaVerdict {
  if (window.count < limit) {
    return {
      ok: true,
      limit,
      remaining: limit - window.count - 1,
      resetInS: window.oldest === undefined ? Math.ceil(quotaWindowMs / 1000) : secondsUntil(window.oldest + quotaWindowMs, now),
    };
  }
  // The slot that frees first is the one of the (n - limit + 1)-th oldest admission.
  return { ok: false, limit, remaining: 0, retryAfterS: Math.max(1, secondsUntil(window.limitthNewest! + quotaWindowMs, now)) };
}

function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

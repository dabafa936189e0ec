// The limiter's decisions as pure functions of its state and `now`, so they can be
// tested exhaustively without a clock: the hourly quota (sliding window) and which
// waiting jobs take the free concurrency slots.
import { TUNABLES } from "../lib/tunables.ts";

const { quotaWindowMs } = TUNABLES.limiter;

export type QuotaVerdict =
  | { ok: true; limit: number; remaining: number; resetInS: number }
  | { ok: false; limit: number; remaining: 0; retryAfterS: number };

/**
 * Sliding-window quota: `admittedAt` are the times of jobs admitted in the last window,
 * oldest first. A new job fits while fewer than `limit` are in the window.
 */
export function checkQuota(admittedAt: number[], limit: number, now: number): QuotaVerdict {
  const inWindow = admittedAt.filter((t) => t > now - quotaWindowMs);
  return quotaVerdict({ count: Math.min(inWindow.length, limit), oldest: inWindow[0], limitthNewest: inWindow[inWindow.length - limit] }, limit, now);
}

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

export interface Waiting {
  jobId: string;
  priority: number;
  createdAt: number;
}

export interface Slot {
  jobId: string;
  leaseExpiresAt: number;
}

/** Priority 1 first, then oldest first; the id breaks ties so the order is total. The limiter's index `waiting_order` keeps the same order. */
export function byPriority(a: Waiting, b: Waiting): number {
  return a.priority - b.priority || a.createdAt - b.createdAt || (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0);
}

export interface DispatchPlan {
  /** Slots whose lease ran out: their runner stopped renewing. */
  expired: string[];
  /** Waiting jobs to start now, in order. */
  start: string[];
}

export function planDispatch(waiting: Waiting[], slots: Slot[], concurrency: number, now: number): DispatchPlan {
  const expired = slots.filter((s) => s.leaseExpiresAt <= now).map((s) => s.jobId);
  const held = slots.length - expired.length;
  const free = Math.max(0, concurrency - held);
  const start = [...waiting].sort(byPriority).slice(0, free).map((w) => w.jobId);
  return { expired, start };
}

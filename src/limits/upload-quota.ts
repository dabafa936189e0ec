// The plan's upload limits (docs/limits.md: uploads): uploads per sliding hour and
// resumable uploads unfinished at once, decided from D1's counts (db/uploads.ts
// uploadCounts), with the same 429 and RateLimit headers as the jobs' quota (headers.ts).
import type { PlanLimits, Usage } from "../contract/usage.ts";
import type { Db } from "../db/client.ts";
import type { Mode } from "../db/schema.ts";
import { uploadCounts, type UploadCounts } from "../db/uploads.ts";
import { AppError } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "./plans.ts";
import { quotaVerdict, type QuotaVerdict } from "./quota.ts";

const POLICY = "uploads-per-hour";
const WINDOW_S = TUNABLES.limiter.quotaWindowMs / 1000;

export function uploadQuotaHeaders(verdict: QuotaVerdict): Record<string, string> {
  const t = verdict.ok ? verdict.resetInS : verdict.retryAfterS;
  return { "ratelimit-policy": `"${POLICY}";q=${verdict.limit};w=${WINDOW_S}`, ratelimit: `"${POLICY}";r=${verdict.remaining};t=${t}` };
}

export type UploadAdmission = { ok: true; headers: Record<string, string> } | { ok: false; error: AppError };

/**
 * Whether one more upload may be created now: the hourly quota first, then (for a resumable
 * one) the unfinished uploads at once, whose place frees when one finishes, is terminated or
 * expires (Retry-After: until the first of them expires).
 */
export function admitUpload(counts: UploadCounts, limits: PlanLimits, plan: string, resumable: boolean, now: number): UploadAdmission {
  const verdict = quotaVerdict({ count: counts.inWindow, oldest: counts.oldest, limitthNewest: counts.limitthNewest }, limits.uploadsPerHour, now);
  const headers = uploadQuotaHeaders(verdict);
  if (!verdict.ok) {
    return {
      ok: false,
      error: new AppError("rate_limit_exceeded", `the ${plan} plan allows ${verdict.limit} uploads per hour; the next upload can be created in ${verdict.retryAfterS} s`, {
        details: { limit: verdict.limit, window: WINDOW_S, retryAfter: verdict.retryAfterS },
        headers: { ...headers, "retry-after": String(verdict.retryAfterS) },
      }),
    };
  }
  if (resumable && counts.open >= limits.openUploads) {
    const retryAfter = Math.max(1, Math.ceil(((counts.firstOpenExpiry ?? now) - now) / 1000));
    return {
      ok: false,
      error: new AppError(
        "rate_limit_exceeded",
        `the ${plan} plan allows ${limits.openUploads} unfinished resumable uploads at once; finish one, or terminate one you will not finish (DELETE its URL), or wait ${retryAfter} s for the first to expire`,
        { details: { limit: limits.openUploads, retryAfter }, headers: { ...headers, "retry-after": String(retryAfter) } },
      ),
    };
  }
  return { ok: true, headers };
}

/** An organization's uploads now (per mode), as `GET /v1/usage` and the dashboard show them; `remaining` is the plan's to work out. */
export type UploadUse = Omit<Usage["uploads"], "remaining">;

/**
 * Counted up to the largest plan's limits, not the organization's own: after a plan shrinks
 * it may hold more than its new limits, and the count should say how many.
 */
const COUNT_UP_TO = {
  perHour: Math.max(...Object.values(PLAN_LIMITS).map((l) => l.uploadsPerHour)),
  open: Math.max(...Object.values(PLAN_LIMITS).map((l) => l.openUploads)),
};

export async function uploadUse(db: Db, who: { orgId: string; mode: Mode }, now: number): Promise<UploadUse> {
  const counts = await uploadCounts(db, who, now, WINDOW_S * 1000, COUNT_UP_TO);
  return { inWindow: counts.inWindow, open: counts.open, oldestLeavesInS: counts.oldest === undefined ? null : Math.max(0, Math.ceil((counts.oldest + WINDOW_S * 1000 - now) / 1000)) };
}

// The plan's upload limits (docs/limits.md: uploads): uploads per sliding hour and
// resumable uploads unfinished at once, decided from D1's counts (db/uploads.ts
// uploadCounts), with the same 429 and RateLimit headers as the jobs' quota (headers.ts).
import type { PlanLimits, Usage } from "../contract/usage.ts";
import type { Db } from "../db/client.ts";
import type { Mode } from "../db/schema.ts";
import { uploadCounts, type UploadCounts } from "../db/uploads.ts";
import type { AppError } from "../lib/errors.ts";
import { rateLimited, rateLimitHeaders, type RatePolicy } from "./headers.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "./plans.ts";
import { quotaVerdict, type QuotaVerdict } from "./quota.ts";

const WINDOW_S = TUNABLES.limiter.quotaWindowMs / 1000;
const UPLOADS_PER_HOUR = (quota: number): RatePolicy => ({ name: "uploads-per-hour", quota, windowS: WINDOW_S });
/** Unfinished resumable uploads at once: a limit on things at once, so no window. */
const OPEN_UPLOADS = (quota: number): RatePolicy => ({ name: "open-uploads", quota });

export function uploadQuotaHeaders(verdict: QuotaVerdict): Record<string, string> {
  return rateLimitHeaders(UPLOADS_PER_HOUR(verdict.limit), verdict.remaining, verdict.ok ? verdict.resetInS : verdict.retryAfterS);
}

export type UploadAdmission = { ok: true; headers: Record<string, string> } | { ok: false; error: AppError };

/**
 * Whether one more upload may be created now: the hourly quota first, then (for a resumable
 * one) the unfinished uploads at once, whose place frees when one finishes, is terminated or
 * expires (Retry-After: until the first of them expires). A refusal's details and RateLimit
 * headers name the limit that refused it.
 */
export function admitUpload(counts: UploadCounts, limits: PlanLimits, plan: string, resumable: boolean, now: number): UploadAdmission {
  const verdict = quotaVerdict({ count: counts.inWindow, oldest: counts.oldest, limitthNewest: counts.limitthNewest }, limits.uploadsPerHour, now);
  if (!verdict.ok) {
    return {
      ok: false,
      error: rateLimited(UPLOADS_PER_HOUR(verdict.limit), verdict.retryAfterS, `the ${plan} plan allows ${verdict.limit} uploads per hour; the next upload can be created in ${verdict.retryAfterS} s`),
    };
  }
  if (resumable && counts.open >= limits.openUploads) {
    const retryAfter = Math.max(1, Math.ceil(((counts.firstOpenExpiry ?? now) - now) / 1000));
    return {
      ok: false,
      error: rateLimited(
        OPEN_UPLOADS(limits.openUploads),
        retryAfter,
        `the ${plan} plan allows ${limits.openUploads} unfinished resumable uploads at once; finish one, or terminate one you will not finish (DELETE its URL), or wait ${retryAfter} s for the first to expire`,
      ),
    };
  }
  return { ok: true, headers: uploadQuotaHeaders(verdict) };
}

/**
 * The 429 when uploads created at the same moment took the last place between the count and
 * the insert, though the count said there was one: the hourly quota's policy, try again at once.
 */
export function uploadRaceLost(limits: PlanLimits): AppError {
  return rateLimited(UPLOADS_PER_HOUR(limits.uploadsPerHour), 1, "the plan's upload limits were reached by uploads created at the same time; try again");
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

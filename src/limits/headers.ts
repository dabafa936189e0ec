// Rate-limit headers in the form of the IETF httpapi draft "RateLimit header fields for
// HTTP" (draft-ietf-httpapi-ratelimit-headers): a named policy with its quota `q` and,
// for a limit over time, its window `w` (a limit on things at once, such as unfinished
// uploads, has none); and the current state with remaining `r` and seconds until more `t`.
// A refusal (429) names the policy that refused it in these headers and in its `details`,
// so both say the same limit.
import { AppError } from "../lib/errors.ts";
import type { QuotaVerdict } from "./quota.ts";
import { TUNABLES } from "../lib/tunables.ts";

/** One limit as RateLimit-Policy names it. */
export interface RatePolicy {
  /** The policy's name, such as `jobs-per-hour`. */
  name: string;
  /** `q`: how many the limit allows. */
  quota: number;
  /** `w`: the window in seconds, for a limit over time; absent for a limit on things at once. */
  windowS?: number;
}

const WINDOW_S = TUNABLES.limiter.quotaWindowMs / 1000;
export const JOBS_PER_HOUR = (quota: number): RatePolicy => ({ name: "jobs-per-hour", quota, windowS: WINDOW_S });

/** `RateLimit-Policy` and `RateLimit` for one policy, `remaining` left and more in `resetS` seconds. */
export function rateLimitHeaders(policy: RatePolicy, remaining: number, resetS: number): Record<string, string> {
  return {
    "ratelimit-policy": `"${policy.name}";q=${policy.quota}${policy.windowS === undefined ? "" : `;w=${policy.windowS}`}`,
    ratelimit: `"${policy.name}";r=${remaining};t=${resetS}`,
  };
}

/**
 * The 429 of a policy: `details` and the headers describe that policy (none left, more in
 * `retryAfterS`), with Retry-After at the same moment as the RateLimit's `t`.
 */
export function rateLimited(policy: RatePolicy, retryAfterS: number, message: string): AppError {
  return new AppError("rate_limit_exceeded", message, {
    details: { policy: policy.name, limit: policy.quota, ...(policy.windowS === undefined ? {} : { window: policy.windowS }), retryAfter: retryAfterS },
    headers: { ...rateLimitHeaders(policy, 0, retryAfterS), "retry-after": String(retryAfterS) },
  });
}

export function quotaHeaders(verdict: QuotaVerdict): Record<string, string> {
  return rateLimitHeaders(JOBS_PER_HOUR(verdict.limit), verdict.remaining, verdict.ok ? verdict.resetInS : verdict.retryAfterS);
}

export function quotaExceeded(verdict: Extract<QuotaVerdict, { ok: false }>, plan: string): AppError {
  return rateLimited(JOBS_PER_HOUR(verdict.limit), verdict.retryAfterS, `the ${plan} plan allows ${verdict.limit} jobs per hour; the next job can be created in ${verdict.retryAfterS} s`);
}

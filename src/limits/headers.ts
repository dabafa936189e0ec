// Rate-limit headers in the form of the IETF httpapi draft "RateLimit header fields for
// HTTP" (draft-ietf-httpapi-ratelimit-headers): a named policy with its quota `q` and
// window `w`, and the current state with remaining `r` and seconds until more `t`.
import { AppError } from "../lib/errors.ts";
import type { QuotaVerdict } from "./quota.ts";
import { TUNABLES } from "../lib/tunables.ts";

const POLICY = "jobs-per-hour";
const WINDOW_S = TUNABLES.limiter.quotaWindowMs / 1000;

export function quotaHeaders(verdict: QuotaVerdict): Record<string, string> {
  const t = verdict.ok ? verdict.resetInS : verdict.retryAfterS;
  return {
    "ratelimit-policy": `"${POLICY}";q=${verdict.limit};w=${WINDOW_S}`,
    ratelimit: `"${POLICY}";r=${verdict.remaining};t=${t}`,
  };
}

export function quotaExceeded(verdict: Extract<QuotaVerdict, { ok: false }>, plan: string): AppError {
  return new AppError(
    "rate_limit_exceeded",
    `the ${plan} plan allows ${verdict.limit} jobs per hour; the next job can be created in ${verdict.retryAfterS} s`,
    {
      details: { limit: verdict.limit, window: WINDOW_S, retryAfter: verdict.retryAfterS },
      headers: { ...quotaHeaders(verdict), "retry-after": String(verdict.retryAfterS) },
    },
  );
}

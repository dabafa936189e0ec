// GET /v1/usage: this organization's plan, its limits (jobs, uploads, what one job may ask
// for) and current use, for the key's mode.
import { Hono } from "hono";
import { database } from "../db/client.ts";
import { uploadCounts } from "../db/uploads.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { MEDIA_LIMITS } from "../limits/media-limits.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { READ_RATE } from "../limits/read-rate.ts";

const windowMs = TUNABLES.limiter.quotaWindowMs;
/**
 * Uploads counted up to the largest plan's limits, not this plan's: after a plan shrinks an
 * organization may hold more than its new limits, and the count should say how many.
 */
const countUpTo = {
  perHour: Math.max(...Object.values(PLAN_LIMITS).map((l) => l.uploadsPerHour)),
  open: Math.max(...Object.values(PLAN_LIMITS).map((l) => l.openUploads)),
};

/** Seconds until the oldest entry of a sliding window leaves it; null when it is empty. */
const leavesInS = (oldest: number | undefined, now: number) => (oldest === undefined ? null : Math.max(0, Math.ceil((oldest + windowMs - now) / 1000)));

export const usageRoutes = new Hono<{ Bindings: Env }>().get("/", async (c) => {
  const org = c.get("org");
  const mode = c.get("mode");
  const limits = PLAN_LIMITS[org.plan];
  const now = Date.now();
  const [usage, uploads] = await Promise.all([
    limiterFor(c.env, org.id, mode).usage(),
    uploadCounts(database(c.env.DB), { orgId: org.id, mode }, now, windowMs, countUpTo),
  ]);
  return c.json({
    plan: org.plan,
    mode,
    billable: mode === "live",
    limits: {
      concurrentJobs: limits.concurrentJobs,
      jobsPerHour: limits.jobsPerHour,
      readsPerMinute: READ_RATE.limit,
      maxUploadBytes: limits.maxUploadBytes,
      uploadsPerHour: limits.uploadsPerHour,
      openUploads: limits.openUploads,
      media: MEDIA_LIMITS[org.plan],
    },
    window: {
      seconds: windowMs / 1000,
      jobs: usage.jobsInWindow,
      remaining: Math.max(0, limits.jobsPerHour - usage.jobsInWindow),
      oldestLeavesInS: usage.windowResetsInS,
    },
    processing: usage.processing,
    queued: usage.queued,
    uploads: {
      inWindow: uploads.inWindow,
      remaining: Math.max(0, limits.uploadsPerHour - uploads.inWindow),
      oldestLeavesInS: leavesInS(uploads.oldest, now),
      open: uploads.open,
    },
  });
});

// GET /v1/usage: this organization's plan, its limits (jobs, uploads, what one job may ask
// for) and current use, for the key's mode.
import { Hono } from "hono";
import type { Usage } from "../contract/usage.ts";
import { database } from "../db/client.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { MEDIA_LIMITS } from "../limits/media-limits.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { READ_RATE } from "../limits/read-rate.ts";
import { uploadUse } from "../limits/upload-quota.ts";

export const usageRoutes = new Hono<{ Bindings: Env }>().get("/", async (c) => {
  const org = c.get("org");
  const mode = c.get("mode");
  const limits = PLAN_LIMITS[org.plan];
  const [usage, uploads] = await Promise.all([limiterFor(c.env, org.id, mode).usage(), uploadUse(database(c.env.DB), { orgId: org.id, mode }, Date.now())]);
  return c.json({
    plan: org.plan,
    mode,
    billable: mode === "live",
    limits: { ...limits, readsPerMinute: READ_RATE.limit, media: MEDIA_LIMITS[org.plan] },
    window: {
      seconds: TUNABLES.limiter.quotaWindowMs / 1000,
      jobs: usage.jobsInWindow,
      remaining: Math.max(0, limits.jobsPerHour - usage.jobsInWindow),
      oldestLeavesInS: usage.windowResetsInS,
    },
    processing: usage.processing,
    queued: usage.queued,
    uploads: { inWindow: uploads.inWindow, remaining: Math.max(0, limits.uploadsPerHour - uploads.inWindow), oldestLeavesInS: uploads.oldestLeavesInS, open: uploads.open },
  } satisfies Usage);
});

// GET /v1/usage: this organization's plan, limits and current use, for the key's mode.
import { Hono } from "hono";
import { limiterFor } from "../limits/org-limiter.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { READ_RATE } from "../limits/read-rate.ts";

export const usageRoutes = new Hono<{ Bindings: Env }>().get("/", async (c) => {
  const org = c.get("org");
  const mode = c.get("mode");
  const usage = await limiterFor(c.env, org.id, mode).usage();
  const limits = PLAN_LIMITS[org.plan];
  return c.json({
    plan: org.plan,
    mode,
    billable: mode === "live",
    limits: { concurrentJobs: limits.concurrentJobs, jobsPerHour: limits.jobsPerHour, readsPerMinute: READ_RATE.limit },
    window: {
      seconds: TUNABLES.limiter.quotaWindowMs / 1000,
      jobs: usage.jobsInWindow,
      remaining: Math.max(0, limits.jobsPerHour - usage.jobsInWindow),
      oldestLeavesInS: usage.windowResetsInS,
    },
    processing: usage.processing,
    queued: usage.queued,
  });
});

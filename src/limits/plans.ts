// Plans and their limits (docs/limits.md). The one place these numbers live; the
// limiter's windows and leases are in src/lib/tunables.ts.
import type { Plan } from "../db/schema.ts";

export interface PlanLimits {
  /** Jobs of the organization (per mode) processing at once. */
  concurrentJobs: number;
  /** Jobs created per sliding hour (per mode). */
  jobsPerHour: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { concurrentJobs: 2, jobsPerHour: 100 },
  pro: { concurrentJobs: 10, jobsPerHour: 1_000 },
  enterprise: { concurrentJobs: 50, jobsPerHour: 10_000 },
};

// Plans and their limits (DESIGN §7). The one place these numbers live.
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

export const QUOTA_WINDOW_MS = 3_600_000;
/** How long a concurrency slot is held without renewal before it returns to the pool. */
export const SLOT_LEASE_MS = 120_000;
/** Runners renew their slot this often (well inside the lease). */
export const SLOT_RENEW_MS = 20_000;

// Each plan's job and upload limits (docs/limits.md; their fields: src/contract/usage.ts). A
// plan's other numbers live beside their checks: media-limits.ts, retention.ts, read-rate.ts.
import type { PlanLimits } from "../contract/usage.ts";
import type { Plan } from "../db/schema.ts";

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { concurrentJobs: 2, jobsPerHour: 100, maxUploadBytes: 256 * MIB, uploadsPerHour: 100, openUploads: 5, maxFanout: 1 },
  pro: { concurrentJobs: 10, jobsPerHour: 1_000, maxUploadBytes: 2 * GIB, uploadsPerHour: 1_000, openUploads: 50, maxFanout: 4 },
  enterprise: { concurrentJobs: 50, jobsPerHour: 10_000, maxUploadBytes: 2 * GIB, uploadsPerHour: 10_000, openUploads: 500, maxFanout: 8 },
};

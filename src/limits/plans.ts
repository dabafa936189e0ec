// Plans and their limits (docs/limits.md). The one place these numbers live; the
// limiter's windows and leases are in src/lib/tunables.ts.
import type { Plan } from "../db/schema.ts";

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

export interface PlanLimits {
  /** Jobs of the organization (per mode) processing at once. */
  concurrentJobs: number;
  /** Jobs created per sliding hour (per mode). */
  jobsPerHour: number;
  /** Largest upload in bytes (direct or resumable); never above UPLOAD_LIMITS.maxBytes, what the processor takes. */
  maxUploadBytes: number;
  /** Uploads created per sliding hour (per mode), direct and resumable. */
  uploadsPerHour: number;
  /** Resumable uploads unfinished at once (per mode); a finished, terminated or expired one frees its place. */
  openUploads: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { concurrentJobs: 2, jobsPerHour: 100, maxUploadBytes: 256 * MIB, uploadsPerHour: 100, openUploads: 5 },
  pro: { concurrentJobs: 10, jobsPerHour: 1_000, maxUploadBytes: 2 * GIB, uploadsPerHour: 1_000, openUploads: 50 },
  enterprise: { concurrentJobs: 50, jobsPerHour: 10_000, maxUploadBytes: 2 * GIB, uploadsPerHour: 10_000, openUploads: 500 },
};

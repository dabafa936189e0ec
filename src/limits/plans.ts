// Plans and their limits (docs/limits.md). The one place these numbers live; the
// limiter's windows and leases are in src/lib/tunables.ts.
import type { FieldIssue } from "../contract/create-job.ts";
import type { JobParams } from "../contract/registry.ts";
import type { Plan } from "../db/schema.ts";

export interface PlanLimits {
  /** Jobs of the organization (per mode) processing at once. */
  concurrentJobs: number;
  /** Jobs created per sliding hour (per mode). */
  jobsPerHour: number;
  /**
   * The largest side an AV1 encode may write: compressVideo with codec av1 must give
   * maxWidth and maxHeight at most this. SVT-AV1 costs up to 5 times x264's CPU a pixel
   * at the presets used (docs/job-types.md, "AV1"), so its output size is bounded by plan.
   * (The processor also refuses an encode predicted past AV1_MAX_CPU_S; docs/limits.md.)
   */
  av1MaxSide: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { concurrentJobs: 2, jobsPerHour: 100, av1MaxSide: 1280 },
  pro: { concurrentJobs: 10, jobsPerHour: 1_000, av1MaxSide: 1920 },
  enterprise: { concurrentJobs: 50, jobsPerHour: 10_000, av1MaxSide: 2560 },
};

/**
 * What the plan refuses of a valid create, at the field to change: an AV1 encode whose
 * maxWidth or maxHeight is absent or over the plan's av1MaxSide. `prefix` is where the
 * params sit in the body (`options` or `params`). Empty when the plan allows the job.
 */
export function planIssues(plan: Plan, type: string, params: JobParams, prefix: string): FieldIssue[] {
  if (type !== "compressVideo") return [];
  const video = params as JobParams<"compressVideo">;
  if (video.codec !== "av1") return [];
  const side = PLAN_LIMITS[plan].av1MaxSide;
  return (["maxWidth", "maxHeight"] as const).flatMap((field) => {
    const value = video[field];
    if (value !== undefined && value <= side) return [];
    const given = value === undefined ? "is not given" : `is ${value}`;
    return [{ path: `${prefix}.${field}`, message: `codec "av1" on the ${plan} plan encodes at most ${side} pixels a side: give maxWidth and maxHeight of ${side} or less (${field} ${given}), or use codec h264, h265 or vp9` }];
  });
}

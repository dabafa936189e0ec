// What a plan lets one job ask for (docs/limits.md, "Media limits per plan"): the knobs that
// multiply a job's CPU time and output size (renditions, frames, resolution, length), so
// that a free key cannot buy an hour of encoding with one request. Checked at creation,
// before anything is saved; a refusal is a 400 naming the field, the plan and its limit.
// Limits that depend on the input itself (its duration, its size) are the processor's and
// hold for every plan (container/src/config.ts).
import type { JobParams, JobType } from "../contract/registry.ts";
import type { Plan } from "../db/schema.ts";

export interface MediaLimits {
  /** videoAdaptive: renditions one job encodes (each is a whole encode of the input). */
  adaptiveRenditions: number;
  /** videoAdaptive: the largest rendition's shorter side, in pixels. */
  adaptiveMaxHeight: number;
}

export const MEDIA_LIMITS: Record<Plan, MediaLimits> = {
  free: { adaptiveRenditions: 3, adaptiveMaxHeight: 1080 },
  pro: { adaptiveRenditions: 5, adaptiveMaxHeight: 1440 },
  enterprise: { adaptiveRenditions: 7, adaptiveMaxHeight: 2160 },
};

/** A refusal: `path` inside the job's params, as the API reports field paths. */
export interface PlanIssue {
  path: string[];
  message: string;
}

type Check<T extends JobType> = (params: JobParams<T>, limits: MediaLimits, plan: Plan) => PlanIssue[];

/** One check per job type that has plan limits; a type without one has none beyond the contract's. */
const checks: { [T in JobType]?: Check<T> } = {
  videoAdaptive: (params, limits, plan) => {
    const issues: PlanIssue[] = [];
    const renditions = `at most ${limits.adaptiveRenditions} renditions`;
    const height = `renditions up to ${limits.adaptiveMaxHeight}p`;
    if (params.renditions && params.renditions.length > limits.adaptiveRenditions) issues.push(overLimit(["renditions"], plan, renditions));
    if (!params.renditions && params.maxRenditions > limits.adaptiveRenditions) issues.push(overLimit(["maxRenditions"], plan, renditions));
    if (params.maxHeight > limits.adaptiveMaxHeight) issues.push(overLimit(["maxHeight"], plan, height));
    params.renditions?.forEach((r, i) => {
      if (r.height > limits.adaptiveMaxHeight) issues.push(overLimit(["renditions", String(i), "height"], plan, height));
    });
    return issues;
  },
};

/** What in these params is over the plan's limits; empty when the job may run. */
export function planIssues<T extends JobType>(type: T, params: JobParams<T>, plan: Plan): PlanIssue[] {
  const check = checks[type] as Check<T> | undefined;
  return check ? check(params, MEDIA_LIMITS[plan], plan) : [];
}

/** "the free plan allows at most 3 renditions", with what to do about it. */
export function overLimit(path: string[], plan: Plan, what: string): PlanIssue {
  return { path, message: `the ${plan} plan allows ${what}; ask for less, or move to a larger plan` };
}

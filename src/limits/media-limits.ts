// What a plan lets one job ask for (docs/limits.md, "Media limits per plan"): the knobs that
// multiply a job's CPU time and output size (renditions, frames, resolution, length), so
// that a free key cannot buy an hour of encoding with one request. Checked at creation,
// before anything is saved; a refusal is a 400 naming the field, the plan and its limit.
// Limits that depend on the input itself (its duration, its size) are the processor's and
// hold for every plan (container/src/config.ts).
import { PREVIEW_MAX } from "../contract/jobs/video-preview.ts";
import type { JobParams, JobType } from "../contract/registry.ts";
import type { Plan } from "../db/schema.ts";

export interface MediaLimits {
  /** videoPreview: its longest `duration` (s), largest `width` (px) and `fps`; frames are at most their product. */
  previewDurationS: number;
  previewWidth: number;
  previewFps: number;
}

export const MEDIA_LIMITS: Record<Plan, MediaLimits> = {
  free: { previewDurationS: 10, previewWidth: 640, previewFps: 15 },
  pro: { previewDurationS: 20, previewWidth: 960, previewFps: 24 },
  enterprise: { previewDurationS: PREVIEW_MAX.durationS, previewWidth: PREVIEW_MAX.width, previewFps: PREVIEW_MAX.fps },
};

/** A refusal: `path` inside the job's params, as the API reports field paths. */
export interface PlanIssue {
  path: string[];
  message: string;
}

type Check<T extends JobType> = (params: JobParams<T>, limits: MediaLimits, plan: Plan) => PlanIssue[];

/** One check per job type that has plan limits; a type without one has none beyond the contract's. */
const checks: { [T in JobType]?: Check<T> } = {
  videoPreview: (p, limits, plan) => [
    ...(p.duration > limits.previewDurationS ? [overLimit(["duration"], plan, `previews of at most ${limits.previewDurationS} s`)] : []),
    ...(p.width > limits.previewWidth ? [overLimit(["width"], plan, `previews at most ${limits.previewWidth} pixels wide`)] : []),
    ...(p.fps > limits.previewFps ? [overLimit(["fps"], plan, `previews of at most ${limits.previewFps} frames per second`)] : []),
  ],
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

// What a plan lets one job ask for (docs/limits.md, "Media limits per plan"): the knobs that
// multiply a job's CPU time and output size (renditions, frames, resolution, length), so
// that a free key cannot buy an hour of encoding with one request. Checked at creation,
// before anything is saved; a refusal is a 400 naming the field, the plan and its limit.
// Limits that depend on the input itself (its duration, its size) are the processor's and
// hold for every plan (container/src/config.ts).
import { CONCAT_MAX_INPUTS } from "../contract/jobs/video-concat.ts";
import { PREVIEW_MAX } from "../contract/jobs/video-preview.ts";
import { DEFAULT_STORYBOARD_TILES } from "../contract/jobs/video-storyboard.ts";
import type { JobParams, JobType } from "../contract/registry.ts";
import type { MediaLimits } from "../contract/usage.ts";
import type { Plan } from "../db/schema.ts";

export const MEDIA_LIMITS: Record<Plan, MediaLimits> = {
  free: { storyboardTiles: 100, storyboardTileWidth: 320, av1MaxSide: 1280, previewDurationS: 10, previewWidth: 640, previewFps: 15, adaptiveRenditions: 3, adaptiveMaxHeight: 1080, concatInputs: 5 },
  pro: { storyboardTiles: 400, storyboardTileWidth: 640, av1MaxSide: 1920, previewDurationS: 20, previewWidth: 960, previewFps: 24, adaptiveRenditions: 5, adaptiveMaxHeight: 1440, concatInputs: 10 },
  enterprise: {
    storyboardTiles: 1000,
    storyboardTileWidth: 1280,
    av1MaxSide: 2560,
    previewDurationS: PREVIEW_MAX.durationS,
    previewWidth: PREVIEW_MAX.width,
    previewFps: PREVIEW_MAX.fps,
    adaptiveRenditions: 7,
    adaptiveMaxHeight: 2160,
    concatInputs: CONCAT_MAX_INPUTS,
  },
};

/** A refusal: `path` inside the job's params, as the API reports field paths. */
export interface PlanIssue {
  path: string[];
  message: string;
}

type Check<T extends JobType> = (params: JobParams<T>, limits: MediaLimits, plan: Plan) => PlanIssue[];

/** One check per job type that has plan limits; a type without one has none beyond the contract's. */
const checks: { [T in JobType]?: Check<T> } = {
  videoStoryboard: (params, limits, plan) => [
    ...((params.count ?? DEFAULT_STORYBOARD_TILES) > limits.storyboardTiles ? [overLimit(["count"], plan, `at most ${limits.storyboardTiles} tiles`)] : []),
    ...(params.width > limits.storyboardTileWidth ? [overLimit(["width"], plan, `tiles at most ${limits.storyboardTileWidth} pixels wide`)] : []),
  ],
  compressVideo: (params, limits, plan) => {
    if (params.codec !== "av1") return [];
    const side = limits.av1MaxSide;
    return (["maxWidth", "maxHeight"] as const).flatMap((field) => {
      const value = params[field];
      if (value === undefined || value <= side) return [];
      return [overLimit([field], plan, `AV1 encodes of at most ${side} pixels a side, so codec "av1" takes maxWidth and maxHeight of ${side} or less (${field} is ${value}) or another codec`)];
    });
  },
  videoPreview: (p, limits, plan) => [
    ...(p.duration > limits.previewDurationS ? [overLimit(["duration"], plan, `previews of at most ${limits.previewDurationS} s`)] : []),
    ...(p.width > limits.previewWidth ? [overLimit(["width"], plan, `previews at most ${limits.previewWidth} pixels wide`)] : []),
    ...(p.fps > limits.previewFps ? [overLimit(["fps"], plan, `previews of at most ${limits.previewFps} frames per second`)] : []),
  ],
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
  videoConcat: (params, limits, plan) =>
    params.append.length + 1 > limits.concatInputs ? [overLimit(["append"], plan, `joins of at most ${limits.concatInputs} videos, url included (append holds ${params.append.length})`)] : [],
};

/** What in these params is over the plan's limits; empty when the job may run. */
export function planIssues<T extends JobType>(type: T, params: JobParams<T>, plan: Plan): PlanIssue[] {
  const check = checks[type] as Check<T> | undefined;
  return check ? check(params, MEDIA_LIMITS[plan], plan) : [];
}

type Defaults<T extends JobType> = (params: JobParams<T>, limits: MediaLimits) => JobParams<T>;

/** What a plan fills in where the caller left a bounded knob unsaid: the plan's own limit. */
const defaults: { [T in JobType]?: Defaults<T> } = {
  // An AV1 encode without a size asked for is kept within the plan's largest side (never scaled up).
  compressVideo: (params, limits) =>
    params.codec === "av1" ? { ...params, maxWidth: params.maxWidth ?? limits.av1MaxSide, maxHeight: params.maxHeight ?? limits.av1MaxSide } : params,
};

/** These params with the plan's limits filled in where they were left unsaid; stored as the job's params. */
export function withPlanDefaults<T extends JobType>(type: T, params: JobParams<T>, plan: Plan): JobParams<T> {
  const fill = defaults[type] as Defaults<T> | undefined;
  return fill ? fill(params, MEDIA_LIMITS[plan]) : params;
}

/** "the free plan allows at most 3 renditions", with what to do about it. */
export function overLimit(path: string[], plan: Plan, what: string): PlanIssue {
  return { path, message: `the ${plan} plan allows ${what}; ask for less, or move to a larger plan` };
}

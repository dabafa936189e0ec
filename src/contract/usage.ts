// GET /v1/usage: a plan's limits (the numbers live in src/limits/plans.ts and
// media-limits.ts, typed by the schemas here) and an organization's use of them, per mode.
// docs/limits.md: usage.
import { z } from "zod";
import { MODES, PLANS } from "./enums.ts";

/** What a plan allows an organization, per mode: jobs and uploads. */
export const planLimits = z.object({
  concurrentJobs: z.int().describe("Jobs processing at once."),
  jobsPerHour: z.int().describe("Jobs created per sliding hour."),
  maxUploadBytes: z.int().describe("The largest upload, direct or resumable; never above what the processor takes as an input (2 GiB)."),
  uploadsPerHour: z.int().describe("Uploads created per sliding hour, direct and resumable."),
  openUploads: z.int().describe("Resumable uploads unfinished at once; a finished, terminated or expired one frees its place."),
  maxFanout: z
    .int()
    .describe("Seats one long compressVideo may use at once by chunked encoding (docs/fanout.md); 1: every job encodes on one seat. A fanned-out job still takes one concurrency slot and counts once per hour."),
});
export type PlanLimits = z.infer<typeof planLimits>;

/**
 * What a plan lets one job ask for: the knobs that multiply a job's CPU time and output size
 * (src/limits/media-limits.ts checks them when a job is created).
 */
export const mediaLimits = z
  .object({
    storyboardTiles: z.int().describe("videoStoryboard: most tiles (`count`, or its default when only `interval` is given)."),
    storyboardTileWidth: z.int().describe("videoStoryboard: widest tile, in pixels."),
    av1MaxSide: z
      .int()
      .describe("compressVideo with codec av1: the largest maxWidth and maxHeight, in pixels, and what a job that names none gets. SVT-AV1 costs up to 5 times x264's CPU a pixel."),
    previewDurationS: z.int().describe("videoPreview: longest `duration`, in seconds."),
    previewWidth: z.int().describe("videoPreview: largest `width`, in pixels."),
    previewFps: z.int().describe("videoPreview: highest `fps`; a preview's frames are at most duration × fps."),
    adaptiveRenditions: z.int().describe("videoAdaptive: renditions one job encodes (each is a whole encode of the input)."),
    adaptiveMaxHeight: z.int().describe("videoAdaptive: the largest rendition's shorter side, in pixels."),
    concatInputs: z.int().describe("videoConcat: videos one join takes, `url` included."),
  })
  .describe("What one job may ask for on this plan; a job over one is refused with 400 `invalid_input` at the field.");
export type MediaLimits = z.infer<typeof mediaLimits>;

export const usage = z.object({
  plan: z.enum(PLANS),
  mode: z.enum(MODES).describe("The key's mode; limits and counts are per mode."),
  billable: z.boolean().describe("False for test keys."),
  limits: planLimits.extend({ readsPerMinute: z.int().describe("Reads (GET) per minute, per key."), media: mediaLimits }),
  window: z.object({
    seconds: z.int().describe("Length of the sliding quota window."),
    jobs: z.int().describe("Jobs created in the window."),
    remaining: z.int(),
    oldestLeavesInS: z.int().nullable().describe("Seconds until the oldest counted job leaves the window; null when the window is empty."),
  }),
  processing: z.int(),
  queued: z.int(),
  uploads: z
    .object({
      inWindow: z.int().describe("Uploads created in the sliding hour, direct and resumable."),
      remaining: z.int().describe("Uploads the plan allows before the hour's quota is reached; 0 at or over it (over it after a plan shrinks)."),
      oldestLeavesInS: z.int().nullable().describe("Seconds until the oldest upload in the window leaves it; null when the window is empty."),
      open: z.int().describe("Resumable uploads unfinished now."),
    })
    .describe("Uploads against the plan's upload limits."),
});
export type Usage = z.infer<typeof usage>;

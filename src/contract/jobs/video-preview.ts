// videoPreview: a short animated WebP or GIF (or a silent MP4) of a span of a video, as
// Cloudinary's e_preview and Mux's animated GIFs give. Plan limits: limits/media-limits.ts.
import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { probedVideoSource } from "./video-extraction.ts";

export const PREVIEW_FORMATS = ["webp", "gif", "mp4"] as const;

/** The longest preview, frame rate and width any plan may ask for; each plan's own are lower or equal. */
export const PREVIEW_MAX = { durationS: 30, fps: 30, width: 1280 } as const;

/** Segments: at most this many clips, each at least this long (seconds). */
export const PREVIEW_SEGMENTS = { max: 10, minDurationS: 1 } as const;

export const videoPreviewParams = z.strictObject({
  url: mediaUrl,
  format: z.enum(PREVIEW_FORMATS).default("webp").describe("`webp` (animated, the default), `gif`, or `mp4` (H.264, no audio)."),
  start: z
    .number()
    .min(0)
    .optional()
    .describe("Where the preview starts, in seconds. Omit for a span chosen around a third of the video (docs/job-types.md)."),
  duration: z
    .number()
    .positive()
    .max(PREVIEW_MAX.durationS)
    .default(5)
    .describe("The preview's length in seconds, cut short by the end of the video. Plans allow less: free 10 s, pro 20 s."),
  width: z
    .int()
    .min(16)
    .max(PREVIEW_MAX.width)
    .default(320)
    .describe("Width in pixels, height keeping the aspect ratio (both even); never wider than the video. Plans allow less: free 640, pro 960."),
  fps: z
    .int()
    .min(1)
    .max(PREVIEW_MAX.fps)
    .default(10)
    .describe("Frames per second, never more than the video's own. Plans allow less: free 15, pro 24."),
  loop: z
    .boolean()
    .default(true)
    .describe("WebP and GIF: play forever (true) or once. An MP4 has no such flag: its player decides."),
  segments: z
    .int()
    .min(2)
    .max(PREVIEW_SEGMENTS.max)
    .optional()
    .describe(`Instead of one span, this many clips of \`duration\` ÷ \`segments\` seconds each (at least ${PREVIEW_SEGMENTS.minDurationS} s), spread evenly over the video and joined, as Cloudinary's preview. Not with \`start\`.`),
  watermark: watermark.optional(),
}).superRefine((p, ctx) => {
  if (p.segments === undefined) return;
  if (p.start !== undefined) {
    ctx.addIssue({ code: "custom", path: ["start"], message: "start places one span; segments spread over the whole video, so give one or the other" });
  }
  if (p.duration / p.segments < PREVIEW_SEGMENTS.minDurationS) {
    const most = Math.floor(p.duration / PREVIEW_SEGMENTS.minDurationS);
    ctx.addIssue({
      code: "custom",
      path: ["segments"],
      message: `each segment must be at least ${PREVIEW_SEGMENTS.minDurationS} s: a ${p.duration} s preview has room for ${most < 2 ? "no segments (make duration at least 2 s)" : `at most ${most}`}`,
    });
  }
});

export const videoPreviewResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  format: z.enum(PREVIEW_FORMATS),
  /** Seconds, measured on the output: the sum of the frames' delays (WebP, GIF) or the stream's length (MP4). */
  duration: z.number(),
  /** Frames per second it was made at: `fps`, or the video's own rate when that is lower. */
  frameRate: z.number(),
  /** Frames in the file. A WebP stores a run of identical frames once (its delay the run's), so a still stretch counts one. */
  frames: z.int(),
  /** Where in the video the preview starts, in seconds (with segments, the first one's start). */
  start: z.number(),
  /** With `segments`: each clip's place in the video, in the order shown. */
  segments: z.array(z.object({ start: z.number(), duration: z.number() })).optional(),
  source: probedVideoSource,
});

export const videoPreview = {
  name: "videoPreview",
  params: videoPreviewParams,
  result: videoPreviewResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

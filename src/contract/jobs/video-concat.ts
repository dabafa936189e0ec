import { z } from "zod";
import { dimension, type JobTypeDefinition, mediaUrl, qualityPreset, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

/** Videos one join takes at most, `url` included; a plan may allow fewer (limits/media-limits.ts). */
export const CONCAT_MAX_INPUTS = 20;

export const videoConcatParams = z.strictObject({
  /** The first video: the join takes its size and frame rate unless told otherwise. */
  url: mediaUrl,
  /** The videos joined after it, in order: URLs or uploads (`upload:upl_…`). */
  append: z.array(mediaUrl, { error: "must be a list of the videos to join after url, 1 to 19 URLs or uploads" }).min(1).max(CONCAT_MAX_INPUTS - 1),
  /** The joined video's size; one side alone keeps the first video's aspect. Each video is fitted inside it, letterboxed. */
  width: dimension.max(3840).optional(),
  height: dimension.max(3840).optional(),
  /** Frames per second; left out, the first video's. */
  fps: z.number().min(1).max(60).optional(),
  /** Seconds each video fades into the next, picture and sound; 0 is a cut. */
  crossfade: z.number().min(0).max(5).default(0),
  /** The encode's quality (H.264 and AAC). */
  quality: qualityPreset.default("high"),
});

export const videoConcatResult = z.object({
  ...signedFile,
  duration: z.number(),
  width: z.int(),
  height: z.int(),
  fps: z.number(),
  /** Each video joined, in order: its length and size as read, and whether it had sound (one without is joined with silence). */
  inputs: z.array(z.object({ duration: z.number(), width: z.int(), height: z.int(), audio: z.boolean() })),
});

export const videoConcat = {
  name: "videoConcat",
  params: videoConcatParams,
  result: videoConcatResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

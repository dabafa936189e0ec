import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, qualityPreset, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { videoSource } from "./compress-video.ts";

export const videoClipParams = z
  .strictObject({
    url: mediaUrl,
    /** Seconds from the input's start where the clip begins. */
    start: z.number().min(0).default(0),
    /** Seconds from the input's start where it ends; left out, the input's end. */
    end: z.number().positive().optional(),
    /**
     * Cut at keyframes by copying the streams: seconds however long the input, no loss, but
     * the clip begins at the keyframe at or before `start` (the result says where).
     */
    fast: z.boolean().default(false),
    /** The re-encode's quality (H.264 and AAC); unused with `fast`. */
    quality: qualityPreset.default("high"),
    stripAudio: z.boolean().default(false),
  })
  .refine((p) => p.end === undefined || p.end > p.start, { path: ["end"], message: "must be after start" });

export const videoClipResult = z.object({
  ...signedFile,
  /** Where the clip begins and ends in the input, in seconds: `start` as asked unless `fast` moved it to a keyframe. */
  start: z.number(),
  end: z.number(),
  /** The clip's own length in seconds, as measured on it. */
  duration: z.number(),
  width: z.int(),
  height: z.int(),
  /** False when the streams were copied (`fast`). */
  reencoded: z.boolean(),
  source: videoSource,
});

export const videoClip = {
  name: "videoClip",
  params: videoClipParams,
  result: videoClipResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

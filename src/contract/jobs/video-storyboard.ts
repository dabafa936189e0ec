// videoStoryboard: evenly spaced frames tiled into one sprite sheet, and a WebVTT file whose
// cues point into it (`sprite.jpg#xywh=x,y,w,h`), as Mux's storyboard.vtt, for scrubbing previews.
import { z } from "zod";
import { imageQuality, type JobTypeDefinition, mediaUrl, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { probedVideoSource } from "./video-extraction.ts";

/** Most tiles one storyboard holds, on any plan (limits/media-limits.ts bounds it per plan). */
export const MAX_STORYBOARD_TILES = 1000;
/** Tiles without `count`: at most this many (the free plan's limit). */
export const DEFAULT_STORYBOARD_TILES = 100;
/** Seconds between tiles when neither `count` nor `interval` is given. */
export const DEFAULT_STORYBOARD_INTERVAL_S = 2;
/** Largest side of a sprite: WebP's limit (16383), held for JPEG too so a format change never fails. */
export const MAX_SPRITE_SIDE = 16383;

export const storyboardFormat = z.enum(["jpg", "webp"]);

export const videoStoryboardParams = z
  .strictObject({
    url: mediaUrl,
    count: z
      .int()
      .min(1)
      .max(MAX_STORYBOARD_TILES)
      .optional()
      .describe(`Tiles. Alone: exactly this many, evenly spaced over the video. With \`interval\`: at most this many. Default: ${DEFAULT_STORYBOARD_TILES} at most.`),
    interval: z
      .number()
      .min(0.1)
      .max(3600)
      .optional()
      .describe(`Seconds between tiles; a video longer than \`count\` × \`interval\` gets \`count\` tiles evenly spaced instead. Default: ${DEFAULT_STORYBOARD_INTERVAL_S} when \`count\` is not given.`),
    width: z.int().min(16).max(1280).default(160).describe("Width of one tile in pixels; its height keeps the video's aspect ratio."),
    columns: z.int().min(1).max(100).default(10).describe("Tiles per row of the sprite (fewer when there are fewer tiles); rows follow from the count. columns × width at most 16383 (the sprite's widest side)."),
    format: storyboardFormat.default("jpg"),
    quality: imageQuality.default(75),
    watermark: watermark.optional(),
  })
  .refine((p) => p.width * p.columns <= MAX_SPRITE_SIDE, {
    path: ["columns"],
    message: `columns × width must be at most ${MAX_SPRITE_SIDE} pixels (the sprite's widest side); ask for fewer columns or a smaller width`,
  });

export const videoStoryboardResult = z.object({
  /** The WebVTT file, `storyboard/storyboard.vtt`; its cues name the sprite relative to it. */
  ...signedFile,
  sprite: z.object({ ...signedFile, width: z.int(), height: z.int(), format: storyboardFormat }),
  tile: z.object({
    width: z.int(),
    height: z.int(),
    columns: z.int(),
    rows: z.int(),
    count: z.int(),
    /** Seconds between tiles (the last cue ends at the video's end). */
    interval: z.number(),
  }),
  /** Seconds the cues cover: the video's length. */
  duration: z.number(),
  source: probedVideoSource,
});

export const videoStoryboard = {
  name: "videoStoryboard",
  params: videoStoryboardParams,
  result: videoStoryboardResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

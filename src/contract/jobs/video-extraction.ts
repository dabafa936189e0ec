import { z } from "zod";
import { checkShape, dimension, frameBackground, frameFit, framePosition, imageFormat, imageQuality, type JobTypeDefinition, mediaUrl, qualityPreset, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

/** Most frames one job returns, whatever the mode (spec §8). */
export const MAX_FRAMES = 30;

const frameOutput = {
  format: imageFormat.default("jpg"),
  quality: imageQuality.default(85),
  width: dimension.optional(),
  height: dimension.optional(),
  fit: frameFit,
  position: framePosition,
  background: frameBackground,
  skipBlackFrames: z.boolean().default(false),
  watermark: watermark.optional(),
};

const frameValues = (max: number, unit: string) =>
  z.array(z.number().min(0).max(max)).min(1).max(MAX_FRAMES, `at most ${MAX_FRAMES} ${unit}`);

export const framesParams = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("count"), count: z.int().min(1).max(MAX_FRAMES), ...frameOutput }),
  z.strictObject({ mode: z.literal("percentage"), values: frameValues(100, "percentages"), ...frameOutput }),
  z.strictObject({ mode: z.literal("interval"), every: z.number().positive(), ...frameOutput }),
  z.strictObject({ mode: z.literal("timestamps"), values: frameValues(Number.MAX_SAFE_INTEGER, "timestamps"), ...frameOutput }),
]);

export const videoExtractionParams = z
  .strictObject({
    url: mediaUrl,
    /** Omit for medium-quality MP3; false for none. */
    audio: z.union([z.literal(false), z.strictObject({ quality: qualityPreset.default("medium") })]).default({ quality: "medium" }),
    /** Omit or false for none. */
    frames: z.union([z.literal(false), framesParams]).default(false),
  })
  .refine((p) => p.audio !== false || p.frames !== false, {
    path: ["frames"],
    message: "enable audio or frames: at least one is required",
  })
  .superRefine((p, ctx) => {
    if (p.frames !== false) checkShape(p.frames, ctx, { defaultFit: "cover", names: ["width", "height"], path: ["frames"] });
  });

/** What the probe found in a video input, as videoExtraction and videoStoryboard report it. */
export const probedVideoSource = z.object({
  size: z.int(),
  duration: z.number(),
  width: z.int(),
  height: z.int(),
  format: z.string(),
  hasAudio: z.boolean(),
});

export const videoExtractionResult = z.object({
  audio: z
    .object({ ...signedFile, duration: z.number(), format: z.literal("mp3"), bitrate: z.string() })
    .nullable(),
  frames: z.array(
    z.object({ ...signedFile, width: z.int(), height: z.int(), format: imageFormat, timestamp: z.number() }),
  ),
  source: probedVideoSource,
});

export const videoExtraction = {
  name: "videoExtraction",
  params: videoExtractionParams,
  result: videoExtractionResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

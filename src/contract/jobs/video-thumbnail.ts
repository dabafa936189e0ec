import { z } from "zod";
import { checkShape, dimension, frameBackground, frameFit, framePosition, imageFormat, imageQuality, type JobTypeDefinition, mediaUrl, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { videoSource } from "./compress-video.ts";

export const videoThumbnailParams = z.strictObject({
  url: mediaUrl,
  /** Seconds from the start, or `auto` for a representative frame (not black, not a fade, not blurred). */
  timestamp: z.union([z.number().min(0), z.literal("auto")]).default("auto"),
  width: dimension.optional(),
  height: dimension.optional(),
  fit: frameFit,
  position: framePosition,
  background: frameBackground,
  format: imageFormat.default("jpg"),
  quality: imageQuality.default(85),
  watermark: watermark.optional(),
}).superRefine((p, ctx) => checkShape(p, ctx, { defaultFit: "cover", names: ["width", "height"] }));

export const videoThumbnailResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  format: imageFormat,
  /** The time of the frame actually used, in seconds. */
  timestamp: z.number(),
  source: videoSource,
});

export const videoThumbnail = {
  name: "videoThumbnail",
  params: videoThumbnailParams,
  result: videoThumbnailResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

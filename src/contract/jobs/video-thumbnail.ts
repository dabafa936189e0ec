import { z } from "zod";
import { dimension, imageFormat, imageQuality, mediaUrl, signedFile } from "../common.ts";
import { videoSource } from "./compress-video.ts";

export const videoThumbnailParams = z.strictObject({
  url: mediaUrl,
  /** Seconds from the start, or `auto` for a representative frame (not black, not a fade, not blurred). */
  timestamp: z.union([z.number().min(0), z.literal("auto")]).default("auto"),
  width: dimension.optional(),
  height: dimension.optional(),
  format: imageFormat.default("jpg"),
  quality: imageQuality.default(85),
});

export const videoThumbnailResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  format: imageFormat,
  /** The time of the frame actually used, in seconds. */
  timestamp: z.number(),
  source: videoSource,
});

import { z } from "zod";
import { dimension, imageQuality, mediaUrl, signedFile } from "../common.ts";

export const compressImageParams = z.strictObject({
  url: mediaUrl,
  quality: imageQuality.default(80),
  maxWidth: dimension.optional(),
  maxHeight: dimension.optional(),
  /** Output format; when absent, the input's format where the encoder supports it. */
  format: z.enum(["jpg", "png", "webp", "avif"]).optional(),
  stripMetadata: z.boolean().default(false),
});

export const compressImageResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  format: z.enum(["jpg", "png", "webp", "avif"]),
  /** Output bytes / input bytes. */
  compressionRatio: z.number(),
  /** True when re-encoding could not beat the input, so the input bytes were returned unchanged. */
  keptOriginal: z.boolean(),
  source: z.object({ size: z.int(), width: z.int(), height: z.int(), format: z.string() }),
});

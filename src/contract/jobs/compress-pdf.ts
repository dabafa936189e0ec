import { z } from "zod";
import { mediaUrl, qualityPreset, signedFile } from "../common.ts";

export const compressPdfParams = z.strictObject({
  url: mediaUrl,
  quality: qualityPreset.default("medium"),
  removeMetadata: z.boolean().default(false),
});

export const compressPdfResult = z.object({
  ...signedFile,
  format: z.literal("pdf"),
  compressionRatio: z.number(),
  pages: z.int(),
  /** True when recompression could not beat the input, so the input was returned (metadata removed if asked). */
  keptOriginal: z.boolean(),
  source: z.object({ size: z.int(), pages: z.int() }),
});

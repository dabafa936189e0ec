import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, qualityPreset, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

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

export const compressPdf = {
  name: "compressPdf",
  params: compressPdfParams,
  result: compressPdfResult,
  uploadContentTypes: UPLOAD_MEDIA.pdf,
} as const satisfies JobTypeDefinition;

import { z } from "zod";
import { background, checkShape, dimension, fit, imageQuality, type JobTypeDefinition, mediaUrl, position, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

export const compressImageParams = z.strictObject({
  url: mediaUrl,
  quality: imageQuality.default(80),
  maxWidth: dimension.optional(),
  maxHeight: dimension.optional(),
  fit: fit
    .optional()
    .describe("How the image meets the box of both `maxWidth` and `maxHeight`: `inside` (the default) scales down to fit in it, never up; `cover` fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it: those three give exactly that box, scaling up when needed."),
  position: position
    .optional()
    .describe("What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the image. Default: `center`."),
  background: background
    .optional()
    .describe("Colour of `contain`'s padding. Default: transparent where the format has alpha, white in JPEG."),
  /** Output format; when absent, the input's format where the encoder supports it. */
  format: z.enum(["jpg", "png", "webp", "avif"]).optional(),
  stripMetadata: z.boolean().default(false),
  watermark: watermark.optional(),
}).superRefine((p, ctx) =>
  checkShape({ ...p, width: p.maxWidth, height: p.maxHeight }, ctx, { defaultFit: "inside", names: ["maxWidth", "maxHeight"] }),
);

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

export const compressImage = {
  name: "compressImage",
  params: compressImageParams,
  result: compressImageResult,
  uploadContentTypes: UPLOAD_MEDIA.image,
} as const satisfies JobTypeDefinition;

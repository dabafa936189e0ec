import { z } from "zod";
import { dimension, type JobTypeDefinition, mediaUrl, qualityPreset, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

/** AV1 is SVT-AV1 (libsvtav1); MP4 and WebM both hold it. */
export const videoCodec = z.enum(["h264", "h265", "vp9", "av1"]);

export const compressVideoParams = z
  .strictObject({
    url: mediaUrl,
    quality: qualityPreset.default("medium"),
    maxWidth: dimension.optional(),
    maxHeight: dimension.optional(),
    /** Average bitrate such as `500K`, `1M` or `2.5M`; switches from constant quality to bitrate mode. */
    targetBitrate: z
      .string()
      .regex(/^\d+(\.\d+)?[KM]$/i, "must be a number followed by K or M, such as 500K or 2.5M")
      .optional(),
    codec: videoCodec
      .default("h264")
      .describe("Video codec. `av1` (SVT-AV1) is kept within the plan's largest AV1 side: `maxWidth` and `maxHeight` at most it, and it when left out (docs/limits.md, \"Media limits per plan\"); WebM holds only `vp9` and `av1`."),
    stripAudio: z.boolean().default(false),
    /** Container; mp4 unless the codec is vp9, which defaults to webm. */
    format: z.enum(["mp4", "webm"]).optional(),
    watermark: watermark.optional(),
  })
  .refine((p) => !(p.format === "webm" && (p.codec === "h264" || p.codec === "h265")), {
    path: ["format"],
    message: "webm holds only the vp9 and av1 codecs; use format mp4 for h264 and h265",
  });

export const videoSource = z.object({
  size: z.int(),
  width: z.int(),
  height: z.int(),
  duration: z.number(),
});

export const compressVideoResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  duration: z.number(),
  format: z.enum(["mp4", "webm"]),
  codec: videoCodec,
  /** Measured average bitrate of the output, such as `1.2M` or `850K`. */
  bitrate: z.string(),
  compressionRatio: z.number(),
  source: videoSource,
});

export const compressVideo = {
  name: "compressVideo",
  params: compressVideoParams,
  result: compressVideoResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

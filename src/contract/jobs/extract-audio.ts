import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, qualityPreset, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

export const extractAudioParams = z.strictObject({
  url: mediaUrl,
  /** low 128 kbps, medium 192 kbps, high 320 kbps MP3. */
  quality: qualityPreset.default("medium"),
});

export const extractAudioResult = z.object({
  ...signedFile,
  duration: z.number(),
  format: z.literal("mp3"),
  /** Such as `192kbps`. */
  bitrate: z.string(),
  source: z.object({
    size: z.int(),
    duration: z.number(),
    audioBitrate: z.int().nullable(),
    audioCodec: z.string(),
  }),
});

export const extractAudio = {
  name: "extractAudio",
  params: extractAudioParams,
  result: extractAudioResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

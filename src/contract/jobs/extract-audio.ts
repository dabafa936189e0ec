import { z } from "zod";
import { mediaUrl, qualityPreset, signedFile } from "../common.ts";

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

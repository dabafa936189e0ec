import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, qualityPreset, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";

export const audioFormat = z.enum(["mp3", "aac", "opus", "flac", "wav"]);
export type AudioFormat = z.infer<typeof audioFormat>;

/** The loudness to normalize to (EBU R128, ffmpeg's loudnorm); `normalize: true` takes every default. */
export const loudnessTarget = z.strictObject({
  /** Integrated loudness, LUFS: -16 suits streaming and podcasts, -23 is EBU R128 broadcast. */
  integratedLufs: z.number().min(-23).max(-5).default(-16),
  /** Highest true peak, dBTP. */
  truePeakDb: z.number().min(-9).max(0).default(-1.5),
  /** Loudness range, LU: a wider input is compressed (loudnorm's dynamic mode). */
  lra: z.number().min(1).max(20).default(11),
});
export type LoudnessTarget = z.infer<typeof loudnessTarget>;

export const extractAudioParams = z.strictObject({
  url: mediaUrl,
  format: audioFormat.default("mp3"),
  /** Lossy formats only: MP3 128/192/320, AAC 96/128/192, Opus 64/96/160 kbps for low/medium/high. */
  quality: qualityPreset.default("medium"),
  normalize: z.union([z.boolean(), loudnessTarget]).default(false),
});

/** Loudness as EBU R128 measures it; null when the audio is silent (below its -70 LUFS gate). */
const loudnessMeasure = z
  .object({ integratedLufs: z.number(), truePeakDb: z.number(), lra: z.number() })
  .nullable();

export const extractAudioResult = z.object({
  ...signedFile,
  duration: z.number(),
  format: audioFormat,
  /** Such as `192kbps`. */
  bitrate: z.string(),
  /** Only with `normalize`. */
  loudness: z
    .object({
      before: loudnessMeasure,
      after: loudnessMeasure,
      /** loudnorm's mode: `linear` (one gain for the whole file), `dynamic` (compressed to reach the target), `none` (silent: left as it was). */
      mode: z.enum(["linear", "dynamic", "none"]),
    })
    .optional(),
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

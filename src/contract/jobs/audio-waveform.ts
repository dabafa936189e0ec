// audioWaveform: a PNG of the input's audio waveform and its peaks as JSON in the waveform
// data format of BBC's audiowaveform (doc/DataFormat.md, version 2), which peaks.js and
// waveform-data.js read as is and wavesurfer.js takes as `peaks` (docs/job-types.md).
import { z } from "zod";
import { background, type JobTypeDefinition, mediaUrl, signedFile } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { extractAudioResult } from "./extract-audio.ts";

/** Most peaks a second: 48 kHz audio at peaks.js's finest usual zoom (128 samples a point) is 375. */
export const MAX_WAVEFORM_POINTS_PER_SECOND = 400;

export const audioWaveformParams = z.strictObject({
  url: mediaUrl,
  width: z.int().min(16).max(8000).default(1800).describe("Width of the PNG in pixels; the whole length of the audio spans it."),
  height: z.int().min(16).max(2000).default(280).describe("Height of the PNG in pixels; full scale reaches its top and bottom edges."),
  color: background.default("#3b82f6").describe("Colour of the waveform, `#rrggbb`."),
  backgroundColor: z
    .union([background, z.literal("transparent")], { error: 'must be a colour as #rrggbb, or "transparent"' })
    .default("transparent")
    .describe('Colour behind the waveform, `#rrggbb`, or `"transparent"`.'),
  pointsPerSecond: z
    .int()
    .min(1)
    .max(MAX_WAVEFORM_POINTS_PER_SECOND)
    .default(100)
    .describe("Peaks (min/max pairs) a second of audio in the JSON, its resolution for zooming in (peaks.js zooms out from it, never further in). The PNG is drawn from them."),
});

export const audioWaveformResult = z.object({
  /** The PNG, `waveform.png`. */
  ...signedFile,
  width: z.int(),
  height: z.int(),
  format: z.literal("png"),
  /** The JSON, `waveform.json`: `{ version: 2, channels: 1, sample_rate, samples_per_pixel, bits: 8, length, data: [min, max, …] }`. */
  peaks: z.object({
    ...signedFile,
    /** Min/max pairs in `data`. */
    length: z.int(),
    /** The rate the audio was measured at (Hz), `sample_rate` in the JSON: `pointsPerSecond` × `samplesPerPixel`. */
    sampleRate: z.int(),
    samplesPerPixel: z.int(),
    bits: z.literal(8),
  }),
  /** Seconds of audio the peaks cover. */
  duration: z.number(),
  /** The input and its audio stream, as extractAudio's. */
  source: extractAudioResult.shape.source,
});

export const audioWaveform = {
  name: "audioWaveform",
  params: audioWaveformParams,
  result: audioWaveformResult,
  uploadContentTypes: [...UPLOAD_MEDIA.video, ...UPLOAD_MEDIA.audio],
} as const satisfies JobTypeDefinition;

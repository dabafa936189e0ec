import { z } from "zod";
import { type JobTypeDefinition, mediaUrl, signedFile, watermark } from "../common.ts";
import { UPLOAD_MEDIA } from "../uploads.ts";
import { probedVideoSource } from "./video-extraction.ts";

/**
 * The default ladder: each rung's size (the picture's shorter side, so `720` is 1280×720
 * or, portrait, 720×1280) and its H.264 video bitrate, near Apple's HLS authoring
 * specification's for 30 fps content. The top rungs that fit under the input (never
 * upscaled) and under `maxHeight` are used, `maxRenditions` of them.
 */
export const ADAPTIVE_LADDER = [
  { height: 240, bitrate: "400K" },
  { height: 360, bitrate: "800K" },
  { height: 480, bitrate: "1.4M" },
  { height: 720, bitrate: "2.8M" },
  { height: 1080, bitrate: "5M" },
  { height: 1440, bitrate: "8M" },
  { height: 2160, bitrate: "14M" },
] as const;

/** The most renditions the contract lets one job ask for (each plan allows at most its own, limits/media-limits.ts). */
export const MAX_RENDITIONS = ADAPTIVE_LADDER.length;

/** `800K`, `2.5M`: as compressVideo's targetBitrate, between 100K and 20M. */
const bitrate = z
  .string()
  .regex(/^\d+(\.\d+)?[KM]$/i, "must be a number followed by K or M, such as 800K or 2.5M")
  .refine((s) => {
    const bps = Number(s.slice(0, -1)) * (s.slice(-1).toUpperCase() === "M" ? 1e6 : 1e3);
    return bps >= 100_000 && bps <= 20_000_000;
  }, "must be between 100K and 20M");

/** A rung's size: its shorter side in pixels, even (4:2:0 needs it), 144 to 2160. */
const rungHeight = z
  .int()
  .min(144)
  .max(2160)
  .multipleOf(2, "must be even");

export const rendition = z.strictObject({
  height: rungHeight.describe("The rendition's shorter side in pixels (720 is 1280×720, or 720×1280 for a portrait video); never above the input's own."),
  bitrate: bitrate.optional().describe("Its average video bitrate, such as `2.8M`, from 100K to 20M; default: the ladder's for the nearest rung at or above this size."),
});

export const videoAdaptiveParams = z
  .strictObject({
    url: mediaUrl,
    renditions: z
      .array(rendition)
      .min(1)
      .max(MAX_RENDITIONS)
      .optional()
      .describe("The renditions to make, explicitly, each size once; default: the ladder (240, 360, 480, 720, 1080, 1440, 2160) up to the input's size and `maxHeight`, `maxRenditions` of it. Sizes above the input's are left out, never upscaled."),
    maxHeight: rungHeight.default(1080).describe("The largest rendition's shorter side, for the default ladder."),
    maxRenditions: z.int().min(1).max(MAX_RENDITIONS).default(3).describe("How many rungs of the default ladder: the top one, the lowest that fits and the rest spread between."),
    codec: z.literal("h264").default("h264"),
    segmentDuration: z.int().min(2).max(10).default(6).describe("Seconds per segment; keyframes fall on the same times in every rendition."),
    audio: z.boolean().default(true).describe("Keep the sound (AAC, 128 kbit/s stereo, in every rendition); false, or an input without sound, makes a stream without."),
    dash: z.boolean().default(false).describe("Also write a DASH manifest (stream/manifest.mpd) over the same encodes: the renditions' packets copied into one file each, video and audio apart."),
    mp4: z.boolean().default(false).describe("Also write a progressive (non-fragmented, faststart) MP4 of the top rendition, for download."),
    watermark: watermark.optional(),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<number>();
    p.renditions?.forEach((r, i) => {
      if (seen.has(r.height)) ctx.addIssue({ code: "custom", path: ["renditions", i, "height"], message: `${r.height} is asked for twice; each rendition needs its own size` });
      seen.add(r.height);
    });
  });

const renditionResult = z.object({
  ...signedFile,
  width: z.int(),
  height: z.int(),
  /** Peak segment bitrate, bits per second, as the master playlist's BANDWIDTH. */
  bandwidth: z.int(),
  /** Average segment bitrate, bits per second, as AVERAGE-BANDWIDTH. */
  averageBandwidth: z.int(),
  /** RFC 6381 codecs of the rendition, `avc1.64001f,mp4a.40.2`. */
  codecs: z.string(),
  frameRate: z.number(),
});

export const videoAdaptiveResult = z.object({
  /** The master playlist (stream/master.m3u8); its link is signed for the folder, so every playlist and segment it names resolves. */
  ...signedFile,
  /** The DASH manifest (stream/manifest.mpd), signed for the same folder; null unless asked for. */
  dash: z.object({ ...signedFile }).nullable(),
  mp4: z.object({ ...signedFile, width: z.int(), height: z.int(), bitrate: z.string() }).nullable(),
  renditions: z.array(renditionResult),
  /** Bytes of every file of the stream together (playlists, media, the DASH manifest and files, the MP4). */
  totalSize: z.int(),
  duration: z.number(),
  segmentDuration: z.int(),
  source: probedVideoSource,
});

export const videoAdaptive = {
  name: "videoAdaptive",
  params: videoAdaptiveParams,
  result: videoAdaptiveResult,
  uploadContentTypes: UPLOAD_MEDIA.video,
} as const satisfies JobTypeDefinition;

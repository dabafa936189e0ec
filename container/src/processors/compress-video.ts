// compressVideo: re-encode to H.264, H.265, VP9 or AV1 at a constant quality (or an average
// bitrate), scaled down inside maxWidth × maxHeight with even sides, audio re-encoded
// to AAC (Opus in WebM) or stripped. The result is measured on the output by ffprobe.
import { stat } from "node:fs/promises";
import type { QualityPreset } from "../../../src/contract/common.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import type { Config } from "../config.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { ffmpegOverlay, prepareWatermark, type PreparedWatermark } from "../tools/watermark.ts";
import { ratio } from "./compress-image.ts";
import { encodeAudio, encodeChunk, planFanout, stitch } from "./compress-video-parts.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"compressVideo">;
type Codec = Params["codec"];

/** Constant-rate factor per codec and preset; docs/job-types.md has the measurements behind them. */
export const CRF: Record<Codec, Record<QualityPreset, number>> = {
  h264: { low: 28, medium: 23, high: 18 },
  h265: { low: 32, medium: 28, high: 24 },
  vp9: { low: 40, medium: 33, high: 27 },
  av1: { low: 42, medium: 32, high: 22 },
};

/**
 * SVT-AV1's speed preset (0 slowest … 13 fastest) per quality preset: chosen for CPU time
 * (a standard-2 container has one vCPU) against size for quality, measured in
 * docs/job-types.md ("AV1").
 */
export const AV1_PRESET: Record<QualityPreset, number> = { low: 10, medium: 8, high: 6 };

/** Audio bitrate per container and preset: AAC in MP4, Opus (more efficient) in WebM. */
export const AUDIO_BITRATE: Record<"mp4" | "webm", Record<QualityPreset, string>> = {
  mp4: { low: "96k", medium: "128k", high: "192k" },
  webm: { low: "64k", medium: "96k", high: "128k" },
};

const CONTENT_TYPES = { mp4: "video/mp4", webm: "video/webm" } as const;

export function outputFormat(params: Pick<Params, "codec" | "format">): "mp4" | "webm" {
  return params.format ?? (params.codec === "vp9" ? "webm" : "mp4");
}

/** "2.5M" → 2 500 000 bits per second (K and M are powers of 1000, as in ffmpeg). */
export function parseBitrate(value: string): number {
  const m = /^(\d+(?:\.\d+)?)([KM])$/i.exec(value.trim());
  if (!m) throw new Error(`not a bitrate: ${value}`);
  return Math.round(Number(m[1]) * (m[2]!.toUpperCase() === "M" ? 1e6 : 1e3));
}

/** 1 234 567 → "1.2M", 850 000 → "850K", 2 000 000 → "2M". */
export function formatBitrate(bitsPerSecond: number): string {
  if (bitsPerSecond >= 1e6) return `${Number((bitsPerSecond / 1e6).toFixed(1))}M`;
  return `${Math.max(1, Math.round(bitsPerSecond / 1e3))}K`;
}

/** Fits width × height inside the maxima without enlarging, keeping the aspect; both sides even. */
export function scaledSize(width: number, height: number, maxWidth?: number, maxHeight?: number): { width: number; height: number } {
  const factor = Math.min(1, maxWidth ? maxWidth / width : 1, maxHeight ? maxHeight / height : 1);
  // Round down to even so that the box is never exceeded; 2 is the smallest even side.
  const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);
  return { width: even(width * factor + 1e-9), height: even(height * factor + 1e-9) };
}

/** SVT-AV1 refuses a picture narrower or shorter than this ("Source Width must be at least 64"). */
export const AV1_MIN_SIDE = 64;

/** The job's refusal of an AV1 picture SVT-AV1 cannot encode, before any encoding; null when it can. */
export function av1TooSmall(params: Params, size: { width: number; height: number }): JobFailure | null {
  if (params.codec !== "av1" || (size.width >= AV1_MIN_SIDE && size.height >= AV1_MIN_SIDE)) return null;
  const scaled = params.maxWidth !== undefined || params.maxHeight !== undefined ? " inside maxWidth × maxHeight" : "";
  return new JobFailure(
    "invalid_input",
    `AV1 encodes pictures of at least ${AV1_MIN_SIDE}×${AV1_MIN_SIDE} pixels, and this video comes out ${size.width}×${size.height}${scaled}: give a larger maxWidth and maxHeight, or use codec h264, h265 or vp9`,
  );
}

/**
 * SVT-AV1's CPU seconds per million output pixels per frame at each quality preset's speed
 * preset: the larger of the 720p and 1080p measurements of docs/job-types.md ("AV1"), on one
 * core of the bench machine (capacity.md counts a vCPU as one).
 */
export const AV1_CPU_S_PER_MEGAPIXEL_FRAME: Record<QualityPreset, number> = { low: 0.026, medium: 0.065, high: 0.16 };

/**
 * The job's refusal of an AV1 encode predicted to take more than AV1_MAX_CPU_S (its frames ×
 * output pixels × the preset's cost), before any encoding: it would otherwise run for hours
 * and end processing_timeout. Null when it fits; an unknown frame rate counts as 30 fps.
 */
export function av1OverBudget(
  params: Params,
  size: { width: number; height: number },
  video: { durationS: number; frameRate: number | null },
  config: Pick<Config, "AV1_MAX_CPU_S">,
): JobFailure | null {
  if (params.codec !== "av1") return null;
  const fps = framesPerSecond(video.frameRate);
  const longestS = config.AV1_MAX_CPU_S / av1CpuSeconds(params.quality, size, { durationS: 1, frameRate: fps });
  if (video.durationS <= longestS) return null;
  return new JobFailure(
    "duration_limit_exceeded",
    `AV1 at quality ${params.quality} encodes at most ${describeDuration(longestS)} of ${size.width}×${size.height} video at ${Number(fps.toFixed(2))} fps ` +
      `(about ${describeDuration(config.AV1_MAX_CPU_S)} of CPU time), and this video is ${describeDuration(video.durationS)}: ` +
      `use a lower quality, a smaller maxWidth and maxHeight, or codec h264, h265 or vp9`,
  );
}

/** An unknown or implausible frame rate counts as 30 fps. */
function framesPerSecond(frameRate: number | null): number {
  return frameRate && frameRate > 0 && frameRate <= 240 ? frameRate : 30;
}

/** The predicted CPU seconds of an AV1 encode: frames × output megapixels × the preset's cost. */
export function av1CpuSeconds(quality: QualityPreset, size: { width: number; height: number }, video: { durationS: number; frameRate: number | null }): number {
  return video.durationS * framesPerSecond(video.frameRate) * ((size.width * size.height) / 1e6) * AV1_CPU_S_PER_MEGAPIXEL_FRAME[quality];
}

/**
 * ffmpeg's limit for an encode: the usual 60 s + 20× the length, and for AV1 at least 60 s +
 * twice its predicted CPU time (half a vCPU, as AV1_MAX_CPU_S assumes); never past the job's.
 */
export function encodeTimeoutMs(params: Params, size: { width: number; height: number }, probe: Pick<MediaProbe, "duration" | "video">, config: Pick<Config, "JOB_TIMEOUT_MS">): number {
  const usual = ffmpegTimeoutMs(probe.duration, config);
  if (params.codec !== "av1") return usual;
  const cpuS = av1CpuSeconds(params.quality, size, { durationS: probe.duration, frameRate: probe.video?.frameRate ?? null });
  return Math.max(usual, Math.min(config.JOB_TIMEOUT_MS, Math.ceil(60_000 + 2_000 * cpuS)));
}

export interface Paths {
  input: string;
  output: string;
}

/**
 * One chunk of a fanned-out encode (docs/fanout.md): `frames` frames from the one at `seekS`
 * seconds (absent: the first), the picture only, in `threads` threads, its track's time scale
 * the rate's numerator so that every frame lasts exactly `timescaleDen` ticks.
 */
export interface ChunkArgs {
  seekS?: number;
  frames: number;
  threads: number;
  /** The rate as num/den: the track's time scale, and each frame's ticks. */
  timescale: number;
  timescaleDen: number;
}

/** `threads`: the encoder's threads for the whole video (its seat's share, Config.ENCODER_THREADS); a chunk gives its own. */
export function buildArgs(params: Params, probe: MediaProbe, paths: Paths, watermark?: PreparedWatermark, chunk?: ChunkArgs, threads?: number): string[] {
  const video = probe.video!;
  const format = outputFormat(params);
  const size = scaledSize(video.width, video.height, params.maxWidth, params.maxHeight);
  // Always scale to the computed size: a pass-through when it is the input's own, and odd
  // sides, non-square pixels and rotated phone video all come out square-pixelled and even.
  // A chunk's frames are numbered from 0 on the rate's grid, and passed through as they are:
  // the accurate seek leaves its first frame half a frame in, where the encoder's constant-rate
  // timing would repeat it and drop the chunk's last (docs/fanout.md).
  const renumber = chunk ? `,setpts=N*${chunk.timescaleDen}/${chunk.timescale}/TB` : "";
  const scale = `scale=${size.width}:${size.height},setsar=1${renumber}`;
  // A chunk's seek is accurate (ffmpeg decodes from the keyframe before and drops what precedes it).
  const seek = chunk?.seekS !== undefined ? ["-ss", chunk.seekS.toFixed(6)] : [];
  const args = [...inputOptions(paths.input), ...seek, "-i", paths.input];
  if (watermark) {
    // The watermark goes on the scaled picture, laid out for its size (tools/watermark.ts).
    const overlay = ffmpegOverlay(watermark, size);
    args.push(...overlay.inputs, "-filter_complex", `[0:${video.index}]${scale}[scaled];${overlay.filter("scaled", "video")}`, "-map", "[video]");
  } else {
    args.push("-map", `0:${video.index}`, "-vf", scale);
  }
  const withAudio = probe.audio !== null && !params.stripAudio && !chunk;
  if (withAudio) args.push("-map", `0:${probe.audio!.index}`);
  if (chunk) args.push("-frames:v", String(chunk.frames), "-fps_mode", "passthrough");
  args.push("-pix_fmt", "yuv420p");
  args.push(...videoCodecArgs(params, chunk?.threads, threads));
  if (chunk) args.push("-video_track_timescale", String(chunk.timescale));
  if (withAudio) {
    const channels = probe.audio!.channels > 2 ? ["-ac", "2"] : [];
    args.push("-c:a", format === "webm" ? "libopus" : "aac", "-b:a", AUDIO_BITRATE[format][params.quality], ...channels);
  } else {
    args.push("-an");
  }
  args.push("-sn", "-dn");
  if (format === "mp4") args.push("-movflags", "+faststart");
  args.push("-f", format, paths.output);
  return args;
}

/** The encoder's arguments; with `chunkThreads` (a chunk, on its seat's vCPU), that many threads and, for x264, joinable output; else `threads` when given. */
function videoCodecArgs(params: Params, chunkThreads?: number, seatThreads?: number): string[] {
  const threads = chunkThreads ?? (params.codec === "h264" || params.codec === "h265" ? seatThreads : undefined);
  const chunk = chunkThreads !== undefined;
  const crf = String(CRF[params.codec][params.quality]);
  const target = params.targetBitrate ? parseBitrate(params.targetBitrate) : undefined;
  // Bitrate mode: average at the target, peaks capped at 1.5× over a 2-second buffer.
  const rate = target ? ["-b:v", String(target), "-maxrate", String(Math.round(target * 1.5)), "-bufsize", String(target * 2)] : [];
  switch (params.codec) {
    case "h264":
      // stitchable=1: every chunk's stream headers come out alike, so the chunks join by copy.
      return ["-c:v", "libx264", "-preset", "medium", ...(target ? rate : ["-crf", crf]), ...(threads ? ["-threads", String(threads)] : []), ...(chunk ? ["-x264-params", "stitchable=1"] : [])];
    case "h265":
      // hvc1 (not hev1) is the tag Apple's players require to open HEVC in MP4.
      return ["-c:v", "libx265", "-preset", "medium", ...(target ? rate : ["-crf", crf]), "-tag:v", "hvc1", "-x265-params", threads ? `log-level=error:pools=${threads}` : "log-level=error"];
    case "vp9":
      // -b:v 0 with -crf is libvpx's constant-quality mode; row-mt uses every core.
      return ["-c:v", "libvpx-vp9", ...(target ? rate : ["-b:v", "0", "-crf", crf]), "-deadline", "good", "-cpu-used", "4", "-row-mt", "1"];
    case "av1":
      // SVT-AV1 threads by itself. With -b:v (and -maxrate above it) ffmpeg 5.1 sets its VBR mode.
      return ["-c:v", "libsvtav1", "-preset", String(AV1_PRESET[params.quality]), ...(target ? rate : ["-crf", crf])];
  }
}

export async function compressVideo(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressVideo">> {
  const { signal } = ctx;
  // A part of a fanned-out job (docs/fanout.md). A part's result is its own: the runner takes it unchecked.
  if (ctx.part?.role === "stitch") return stitch(params, ctx.part, ctx);
  if (ctx.part) return (await (ctx.part.role === "video" ? encodeChunk(params, ctx.part, ctx) : encodeAudio(params, ctx))) as unknown as StoredResult<"compressVideo">;
  const probe = await probeInput(ctx, { video: true });
  // Offered a fan-out, a long enough input is planned (from its index alone) instead of encoded.
  const plan = ctx.fanout && planFanout(ctx.fanout, probe, params, ctx.input.size);
  if (plan) {
    ctx.plan(plan);
    return {} as StoredResult<"compressVideo">;
  }
  // The encode reads all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(8);

  // Refused before any encoding: what SVT-AV1 cannot encode, or would take hours at.
  const picture = scaledSize(probe.video!.width, probe.video!.height, params.maxWidth, params.maxHeight);
  const refused = av1TooSmall(params, picture) ?? av1OverBudget(params, picture, { durationS: probe.duration, frameRate: probe.video!.frameRate }, ctx.config);
  if (refused) throw refused;
  const format = outputFormat(params);
  const name = `video.${format}`;
  const output = ctx.addOutput(name, CONTENT_TYPES[format]);
  await runFfmpeg(buildArgs(params, probe, { input: ctx.input.source, output }, watermark, undefined, ctx.config.ENCODER_THREADS || undefined), {
    signal,
    timeoutMs: encodeTimeoutMs(params, picture, probe, ctx.config),
    durationS: probe.duration,
    onProgress: (f) => ctx.setProgress(10 + f * 85),
    task: "encoding the video",
  });
  throwIfAborted(signal);

  // The one output probed: the result states the encode's measured length, picture size and
  // bitrate, which MP4 (edit lists, the AAC encoder's priming) and WebM (block timings)
  // each define their own way; ffprobe reads both as players do. Its ~0.1 s is small beside
  // an encode. (extractAudio reads its MP3's header instead, tools/mp3.ts.)
  const result = await probeMedia(output, signal);
  const size = (await stat(output)).size;
  const duration = result.duration;
  return {
    url: name,
    size,
    width: result.video?.width ?? 0,
    height: result.video?.height ?? 0,
    duration: round3(duration),
    format,
    codec: params.codec,
    bitrate: formatBitrate(result.bitRate ?? (duration > 0 ? (size * 8) / duration : 0)),
    compressionRatio: ratio(size, ctx.input.size),
    source: { size: ctx.input.size, width: probe.video!.width, height: probe.video!.height, duration: round3(probe.duration) },
  };
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

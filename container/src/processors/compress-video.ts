// compressVideo: re-encode to H.264, H.265 or VP9 at a constant quality (or an average
// bitrate), scaled down inside maxWidth × maxHeight with even sides, audio re-encoded
// to AAC (Opus in WebM) or stripped. The result is measured on the output by ffprobe.
import { stat } from "node:fs/promises";
import type { QualityPreset } from "../../../src/contract/common.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { throwIfAborted } from "../errors.ts";
import { ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { ratio } from "./compress-image.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"compressVideo">;
type Codec = Params["codec"];

/** Constant-rate factor per codec and preset; docs/job-types.md has the measurements behind them. */
export const CRF: Record<Codec, Record<QualityPreset, number>> = {
  h264: { low: 28, medium: 23, high: 18 },
  h265: { low: 32, medium: 28, high: 24 },
  vp9: { low: 40, medium: 33, high: 27 },
};

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

export interface Paths {
  input: string;
  output: string;
}

export function buildArgs(params: Params, probe: MediaProbe, paths: Paths): string[] {
  const video = probe.video!;
  const format = outputFormat(params);
  const size = scaledSize(video.width, video.height, params.maxWidth, params.maxHeight);
  const args = [...inputOptions(paths.input), "-i", paths.input, "-map", `0:${video.index}`];
  const withAudio = probe.audio !== null && !params.stripAudio;
  if (withAudio) args.push("-map", `0:${probe.audio!.index}`);

  // Always scale to the computed size: a pass-through when it is the input's own, and odd
  // sides, non-square pixels and rotated phone video all come out square-pixelled and even.
  args.push("-vf", `scale=${size.width}:${size.height},setsar=1`, "-pix_fmt", "yuv420p");
  args.push(...videoCodecArgs(params));
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

function videoCodecArgs(params: Params): string[] {
  const crf = String(CRF[params.codec][params.quality]);
  const target = params.targetBitrate ? parseBitrate(params.targetBitrate) : undefined;
  // Bitrate mode: average at the target, peaks capped at 1.5× over a 2-second buffer.
  const rate = target ? ["-b:v", String(target), "-maxrate", String(Math.round(target * 1.5)), "-bufsize", String(target * 2)] : [];
  switch (params.codec) {
    case "h264":
      return ["-c:v", "libx264", "-preset", "medium", ...(target ? rate : ["-crf", crf])];
    case "h265":
      // hvc1 (not hev1) is the tag Apple's players require to open HEVC in MP4.
      return ["-c:v", "libx265", "-preset", "medium", ...(target ? rate : ["-crf", crf]), "-tag:v", "hvc1", "-x265-params", "log-level=error"];
    case "vp9":
      // -b:v 0 with -crf is libvpx's constant-quality mode; row-mt uses every core.
      return ["-c:v", "libvpx-vp9", ...(target ? rate : ["-b:v", "0", "-crf", crf]), "-deadline", "good", "-cpu-used", "4", "-row-mt", "1"];
  }
}

export async function compressVideo(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressVideo">> {
  const { signal } = ctx;
  // The encode reads all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { video: true });
  ctx.setProgress(8);

  const format = outputFormat(params);
  const name = `video.${format}`;
  const output = ctx.addOutput(name, CONTENT_TYPES[format]);
  await runFfmpeg(buildArgs(params, probe, { input: ctx.input.source, output }), {
    signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
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

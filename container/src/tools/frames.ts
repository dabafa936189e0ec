// Still frames from video: where a time falls on the frame grid, what size a frame comes
// out, which frame is representative ("auto") and which is the next one that is not
// black. ffmpeg decodes and scales; sharp encodes the image (JPEG, PNG or WebP).
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import type { Config } from "../config.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { imageFailure } from "./image.ts";
import { ffmpegTimeoutMs, runFfmpeg, seconds } from "./ffmpeg.ts";
import { inputOptions, type MediaProbe } from "./ffprobe.ts";

export type FrameFormat = "jpg" | "png" | "webp";

export const FRAME_CONTENT_TYPES: Record<FrameFormat, string> = { jpg: "image/jpeg", png: "image/png", webp: "image/webp" };

/** Frame rate assumed when the container states none. */
const FALLBACK_FPS = 25;

export interface FrameBox {
  /** Size the decoded picture is scaled to (square pixels). */
  scaleWidth: number;
  scaleHeight: number;
  /** Final size: the scaled picture, centre-cropped when both sides were asked for. */
  width: number;
  height: number;
}

/** Frame size (docs/job-types.md, videoExtraction): no size keeps the source's; one side keeps the aspect; both cover the box, cropped. */
export function frameBox(source: { width: number; height: number }, width?: number, height?: number): FrameBox {
  const sw = source.width;
  const sh = source.height;
  if (width && height) {
    const factor = Math.max(width / sw, height / sh);
    return { scaleWidth: Math.max(width, Math.round(sw * factor)), scaleHeight: Math.max(height, Math.round(sh * factor)), width, height };
  }
  if (width) {
    const h = Math.max(1, Math.round((sh * width) / sw));
    return { scaleWidth: width, scaleHeight: h, width, height: h };
  }
  if (height) {
    const w = Math.max(1, Math.round((sw * height) / sh));
    return { scaleWidth: w, scaleHeight: height, width: w, height };
  }
  return { scaleWidth: sw, scaleHeight: sh, width: sw, height: sh };
}

export function boxFilter(box: FrameBox): string {
  const crop = box.width !== box.scaleWidth || box.height !== box.scaleHeight ? `,crop=${box.width}:${box.height}` : "";
  return `scale=${box.scaleWidth}:${box.scaleHeight},setsar=1${crop}`;
}

function fps(probe: MediaProbe): number {
  return probe.video?.frameRate ?? FALLBACK_FPS;
}

/** Time of the last frame: one frame before the end. */
export function lastFrameTime(probe: MediaProbe): number {
  const rate = fps(probe);
  return Math.max(0, Math.floor((probe.duration - 1e-6) * rate) / rate);
}

/** The start of the frame on screen at `t` (on the frame grid), never past the last frame. */
export function frameTimeAt(t: number, probe: MediaProbe): number {
  const rate = fps(probe);
  return Math.min(lastFrameTime(probe), Math.floor(t * rate + 1e-6) / rate);
}

/**
 * Where to seek to get the frame that starts at `frameTime`: half a frame early, because
 * ffmpeg's accurate seek returns the first frame at or after the point asked for.
 */
export function seekPoint(frameTime: number, probe: MediaProbe): number {
  return Math.max(0, frameTime - 0.5 / fps(probe));
}

/** ffmpeg arguments writing one frame at `time`, scaled and cropped, as PNG. */
export function grabArgs(input: string, probe: MediaProbe, time: number, box: FrameBox, output: string): string[] {
  return [
    ...inputOptions(), "-ss", seconds(seekPoint(time, probe)), "-i", input,
    "-map", `0:${probe.video!.index}`, "-an", "-sn", "-dn",
    "-frames:v", "1", "-vf", boxFilter(box), "-c:v", "png", "-compression_level", "1",
    "-f", "image2", "-update", "1", output,
  ];
}

/** Size of the grey thumbnails frames are judged on. */
export const SAMPLE = { width: 160, height: 90 } as const;

/** ffmpeg arguments writing every frame of each window as raw 8-bit grey at SAMPLE size. */
export function sampleArgs(input: string, probe: MediaProbe, windows: { start: number; length: number; output: string }[]): string[] {
  const inputs = windows.flatMap((w) => [...inputOptions(), "-ss", seconds(seekPoint(w.start, probe)), "-t", seconds(w.length), "-i", input]);
  const outputs = windows.flatMap((w, i) => [
    "-map", `${i}:${probe.video!.index}`, "-an", "-sn", "-dn",
    "-vf", `scale=${SAMPLE.width}:${SAMPLE.height}:flags=area,format=gray`, "-f", "rawvideo", w.output,
  ]);
  return [...inputs, ...outputs];
}

export interface FrameStats {
  /** Mean luma, 0–255. */
  mean: number;
  /** Luma standard deviation: near 0 for a blank picture. */
  stdev: number;
  /** Share of pixels darker than 10 % (ffmpeg blackdetect's pix_th). */
  darkShare: number;
  /** Variance of the Laplacian: high for sharp detail, low for blur. */
  sharpness: number;
}

/** Statistics of one grey frame, row-major, one byte per pixel. */
export function frameStats(gray: Uint8Array, width: number, height: number): FrameStats {
  let sum = 0;
  let sumSq = 0;
  let dark = 0;
  for (const v of gray) {
    sum += v;
    sumSq += v * v;
    if (v <= 25) dark++;
  }
  const n = gray.length || 1;
  const mean = sum / n;
  let lSum = 0;
  let lSq = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const l = gray[i - 1]! + gray[i + 1]! + gray[i - width]! + gray[i + width]! - 4 * gray[i]!;
      lSum += l;
      lSq += l * l;
      count++;
    }
  }
  const lMean = count ? lSum / count : 0;
  return {
    mean,
    stdev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)),
    darkShare: dark / n,
    sharpness: count ? lSq / count - lMean * lMean : 0,
  };
}

/** Black as ffmpeg's blackdetect defines it: at least 98 % of pixels darker than 10 %. */
export function isBlack(stats: FrameStats): boolean {
  return stats.darkShare >= 0.98;
}

export interface SampledWindow {
  /** Time of the window's first frame. */
  start: number;
  fps: number;
  frames: FrameStats[];
}

/** A window is a transition when its brightness moves a lot, or it is part black: a fade or a cut. */
export function isTransition(window: SampledWindow): boolean {
  const first = window.frames[0];
  const last = window.frames.at(-1);
  if (!first || !last) return true;
  const black = window.frames.filter(isBlack).length;
  if (black > 0 && black < window.frames.length) return true;
  return Math.abs(first.mean - last.mean) > Math.max(8, 0.1 * Math.max(first.mean, last.mean));
}

/**
 * The representative frame among the sampled windows: the sharpest frame that is not black,
 * not blank and not inside a fade; failing that the sharpest that is not black; failing that
 * (a black video) the brightest. Returns the frame's time, or null when nothing was sampled.
 */
export function chooseRepresentative(windows: SampledWindow[]): number | null {
  const frames = windows.flatMap((w) => w.frames.map((stats, k) => ({ stats, time: w.start + k / w.fps, steady: !isTransition(w) })));
  const tiers = [
    frames.filter((f) => f.steady && !isBlack(f.stats) && f.stats.stdev >= 4),
    frames.filter((f) => f.steady && !isBlack(f.stats)),
    frames.filter((f) => !isBlack(f.stats)),
  ];
  for (const tier of tiers) {
    const best = tier.reduce<(typeof frames)[number] | undefined>((a, f) => (!a || f.stats.sharpness > a.stats.sharpness ? f : a), undefined);
    if (best) return best.time;
  }
  const brightest = frames.reduce<(typeof frames)[number] | undefined>((a, f) => (!a || f.stats.mean > a.stats.mean ? f : a), undefined);
  return brightest?.time ?? null;
}

export interface FrameContext {
  input: { path: string };
  workDir: string;
  signal: AbortSignal;
  config: Pick<Config, "JOB_TIMEOUT_MS" | "MAX_INPUT_PIXELS">;
}

let sampleCounter = 0;

/** Decodes the windows (frame-grid times) to grey thumbnails and measures every frame. */
async function sampleWindows(ctx: FrameContext, probe: MediaProbe, windows: { start: number; length: number }[]): Promise<SampledWindow[]> {
  const rate = fps(probe);
  const files = windows.map((w) => ({ ...w, output: join(ctx.workDir, `sample-${++sampleCounter}.gray`) }));
  try {
    await runFfmpeg(sampleArgs(ctx.input.path, probe, files), {
      signal: ctx.signal,
      timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
      task: "analysing the video's frames",
    });
    const frameBytes = SAMPLE.width * SAMPLE.height;
    const sampled: SampledWindow[] = [];
    for (const file of files) {
      const data = await readFile(file.output).catch(() => Buffer.alloc(0));
      const frames: FrameStats[] = [];
      for (let at = 0; at + frameBytes <= data.length; at += frameBytes) {
        frames.push(frameStats(data.subarray(at, at + frameBytes), SAMPLE.width, SAMPLE.height));
      }
      sampled.push({ start: file.start, fps: rate, frames });
    }
    return sampled;
  } finally {
    await Promise.all(files.map((f) => rm(f.output, { force: true })));
  }
}

/** Candidate windows for "auto": eight half-second windows spread over the video. */
export function autoWindows(probe: MediaProbe): { start: number; length: number }[] {
  const count = 8;
  const length = Math.min(0.5, probe.duration / count);
  return Array.from({ length: count }, (_, i) => ({ start: frameTimeAt(((i + 0.5) * probe.duration) / count, probe), length }));
}

/** Time of a representative frame: not black, not mid-fade, as sharp as any sampled. */
export async function representativeFrameTime(ctx: FrameContext, probe: MediaProbe): Promise<number> {
  const time = chooseRepresentative(await sampleWindows(ctx, probe, autoWindows(probe)));
  return time === null ? frameTimeAt(probe.duration / 2, probe) : frameTimeAt(time, probe);
}

/** How far past a black frame to look for a non-black one, in growing windows. */
export const BLACK_LOOKAHEAD_S = [2, 28];

/**
 * The first frame at or after `time` that is not black, looking at most 30 s ahead;
 * `time` itself when nothing later is lit (a video that ends in black).
 */
export async function nextNonBlackTime(ctx: FrameContext, probe: MediaProbe, time: number): Promise<number> {
  let start = time;
  for (const length of BLACK_LOOKAHEAD_S) {
    if (start > lastFrameTime(probe)) break;
    const [window] = await sampleWindows(ctx, probe, [{ start, length }]);
    const k = window!.frames.findIndex((f) => !isBlack(f));
    if (k >= 0) return frameTimeAt(start + k / window!.fps, probe);
    if (window!.frames.length === 0) break;
    start = frameTimeAt(start + window!.frames.length / window!.fps, probe);
    throwIfAborted(ctx.signal);
  }
  return time;
}

export interface GrabbedFrame {
  size: number;
  width: number;
  height: number;
}

/** Checks a frame size against the processor's pixel limit before anything is decoded. */
export function checkBox(box: FrameBox, config: Pick<Config, "MAX_INPUT_PIXELS">): void {
  if (box.scaleWidth * box.scaleHeight > config.MAX_INPUT_PIXELS) {
    throw new JobFailure("invalid_input", `a ${box.width}×${box.height} frame is larger than this service produces`);
  }
}

/**
 * Runs `args` (grabArgs writing the frame to `frame.png`), then encodes that PNG to
 * `frame.output` in the format asked for. Always: the intermediate PNG is removed.
 */
export async function grabFrame(
  ctx: FrameContext,
  probe: MediaProbe,
  args: string[],
  frame: { time: number; png: string; format: FrameFormat; quality: number; output: string },
): Promise<GrabbedFrame> {
  const at = `${Math.round(frame.time * 1000) / 1000} s`;
  try {
    await runFfmpeg(args, { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), task: `reading the frame at ${at}` });
    throwIfAborted(ctx.signal);
    let image = sharp(frame.png, { limitInputPixels: ctx.config.MAX_INPUT_PIXELS });
    switch (frame.format) {
      case "jpg":
        image = image.jpeg({ quality: frame.quality, mozjpeg: true });
        break;
      case "webp":
        image = image.webp({ quality: frame.quality });
        break;
      case "png":
        // PNG stays lossless: quality has no say in it.
        image = image.png({ compressionLevel: 9 });
        break;
    }
    try {
      const info = await image.toFile(frame.output);
      return { size: info.size, width: info.width, height: info.height };
    } catch (error) {
      if (/missing|no such file/i.test(String((error as Error)?.message))) {
        throw new JobFailure("corrupt_media", `no frame could be decoded at ${at}; the video may be damaged there`, { cause: error });
      }
      throw imageFailure(error);
    }
  } finally {
    await rm(frame.png, { force: true });
  }
}

// Which frame to grab: a representative one ("auto": not black, not mid-fade, sharp) or
// the next one that is not black. Frames are judged on small grey thumbnails that ffmpeg
// decodes from short windows of the video; frames.ts grabs the chosen one.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { readToolFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { ffmpegTimeoutMs, runFfmpeg, seconds } from "./ffmpeg.ts";
import { inputOptions, type MediaProbe } from "./ffprobe.ts";
import { fps, frameTimeAt, lastFrameTime, seekPoint, type FrameContext } from "./frames.ts";

/** Size of the grey thumbnails frames are judged on. */
export const SAMPLE = { width: 160, height: 90 } as const;

/**
 * ffmpeg arguments writing every frame of each window as raw 8-bit grey at SAMPLE size.
 * `seek: "index"` opens the input once per window at its start; `"decode"` reads it once
 * from the beginning and trims each output instead (as frames.ts decodingSeek does for one frame).
 */
export function sampleArgs(input: string, probe: MediaProbe, windows: { start: number; length: number; output: string }[], seek: "index" | "decode" = "index"): string[] {
  const window = (w: { start: number; length: number }) => ["-ss", seconds(seekPoint(w.start, probe)), "-t", seconds(w.length)];
  const inputs = seek === "index" ? windows.flatMap((w) => [...inputOptions(input), ...window(w), "-i", input]) : [...inputOptions(input), "-i", input];
  const outputs = windows.flatMap((w, i) => [
    "-map", `${seek === "index" ? i : 0}:${probe.video!.index}`, "-an", "-sn", "-dn",
    ...(seek === "decode" ? window(w) : []),
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

let sampleCounter = 0;

/** Decodes the windows (frame-grid times) to grey thumbnails and measures every frame. */
async function sampleWindows(ctx: FrameContext, probe: MediaProbe, windows: { start: number; length: number }[], seek: "index" | "decode" = "index"): Promise<SampledWindow[]> {
  const files = windows.map((w) => ({ ...w, output: join(ctx.workDir, `sample-${++sampleCounter}.gray`) }));
  // A file that cannot be seeked in gives an error or nothing at the seek: read it through instead.
  const readThrough = () => sampleWindows(ctx, probe, windows, "decode");
  try {
    try {
      await runFfmpeg(sampleArgs(ctx.input.source, probe, files, seek), {
        signal: ctx.signal,
        timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
        task: "analysing the video's frames",
      });
    } catch (error) {
      if (seek === "decode" || !(error instanceof JobFailure && error.code === "corrupt_media")) throw error;
      return await readThrough();
    }
    const sampled = await readWindows(files, fps(probe));
    return seek === "index" && sampled.every((w) => w.frames.length === 0) ? await readThrough() : sampled;
  } finally {
    await Promise.all(files.map((f) => rm(f.output, { force: true })));
  }
}

async function readWindows(files: { start: number; output: string }[], rate: number): Promise<SampledWindow[]> {
  const frameBytes = SAMPLE.width * SAMPLE.height;
  const sampled: SampledWindow[] = [];
  for (const file of files) {
    const data = await readToolFile(file.output).catch((error: unknown) => (error instanceof JobFailure ? Promise.reject(error) : Buffer.alloc(0)));
    const frames: FrameStats[] = [];
    for (let at = 0; at + frameBytes <= data.length; at += frameBytes) {
      frames.push(frameStats(data.subarray(at, at + frameBytes), SAMPLE.width, SAMPLE.height));
    }
    sampled.push({ start: file.start, fps: rate, frames });
  }
  return sampled;
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

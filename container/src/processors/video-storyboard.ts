// videoStoryboard: evenly spaced frames tiled into one sprite (ffmpeg, one run, written as
// PNG; sharp encodes JPEG or WebP) and a WebVTT file whose cue i covers [i × interval,
// (i + 1) × interval), the last ending at the video's end, with the payload
// `sprite.jpg#xywh=x,y,w,h` relative to the VTT, so both resolve under one folder link.
import { probedVideoSource } from "./video-extraction.ts";
import { ffmpegOverlay, prepareWatermark, type PreparedWatermark } from "../tools/watermark.ts";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sharp } from "../tools/image-process.ts";
import {
  DEFAULT_STORYBOARD_INTERVAL_S,
  DEFAULT_STORYBOARD_TILES,
  MAX_SPRITE_SIDE,
} from "../../../src/contract/jobs/video-storyboard.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import type { Config } from "../config.ts";
import { claimFile, readToolFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { step } from "../steps.ts";
import { ffmpegTimeoutMs, runFfmpeg, seconds } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { FRAME_CONTENT_TYPES, fps } from "../tools/frames.ts";
import { imageFailure } from "../tools/image.ts";
import { round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";

type Params = JobParams<"videoStoryboard">;

export const VTT_NAME = "storyboard/storyboard.vtt";
export const spriteName = (format: Params["format"]) => `sprite.${format}`;

/** What the storyboard will be: its tiles, their spacing and the sprite they make. */
export interface StoryboardPlan {
  count: number;
  /** Seconds between tile times (exact; the result rounds it to the millisecond). */
  interval: number;
  /** Seconds the cues cover: the video's length. */
  duration: number;
  tileWidth: number;
  tileHeight: number;
  columns: number;
  rows: number;
}

/**
 * The tiles for `params` on this video (tileSpacing) and the sprite they make. A sprite
 * over MAX_SPRITE_SIDE a side (or the pixel limit) is refused, saying what to ask for.
 */
export function planStoryboard(params: Params, probe: MediaProbe, config: Pick<Config, "MAX_INPUT_PIXELS">): StoryboardPlan {
  const frames = Math.max(1, Math.floor(probe.duration * fps(probe) + 1e-6));
  return sized(params, probe, config, { ...tileSpacing(params, probe.duration, frames), duration: probe.duration });
}

/**
 * How many tiles, how many seconds apart: `count` alone gives that many over the length;
 * `interval` (2 s by default) one per interval up to `count` (100 by default), beyond which
 * `count` tiles spread evenly. Never more tiles than the video has frames.
 */
export function tileSpacing(params: Pick<Params, "count" | "interval">, duration: number, frames: number): { count: number; interval: number } {
  const evenly = (count: number) => {
    const n = Math.min(count, frames);
    return { count: n, interval: duration / n };
  };
  if (params.interval === undefined && params.count !== undefined) return evenly(params.count);
  const interval = params.interval ?? DEFAULT_STORYBOARD_INTERVAL_S;
  const needed = Math.max(1, Math.ceil(duration / interval - 1e-9));
  const most = params.count ?? DEFAULT_STORYBOARD_TILES;
  return needed <= most && needed <= frames ? { count: needed, interval } : evenly(Math.min(needed, most));
}

function sized(params: Params, probe: MediaProbe, config: Pick<Config, "MAX_INPUT_PIXELS">, tiles: { count: number; interval: number; duration: number }): StoryboardPlan {
  const video = probe.video!;
  const tileWidth = params.width;
  const tileHeight = Math.max(1, Math.round((video.height * tileWidth) / video.width));
  const columns = Math.min(params.columns, tiles.count);
  const rows = Math.ceil(tiles.count / columns);
  const width = tileWidth * columns;
  const height = tileHeight * rows;
  if (width > MAX_SPRITE_SIDE || height > MAX_SPRITE_SIDE || width * height > config.MAX_INPUT_PIXELS) {
    throw new JobFailure(
      "invalid_input",
      `${tiles.count} tiles of ${tileWidth}×${tileHeight} in ${columns} columns make a ${width}×${height} sprite, over the limit of ${MAX_SPRITE_SIDE} pixels a side; ask for fewer tiles (count or a longer interval), more columns or a smaller width`,
    );
  }
  return { ...tiles, tileWidth, tileHeight, columns, rows };
}

/**
 * ffmpeg arguments writing the sprite as one PNG. Time is rescaled so that one interval is
 * one second (setpts, in microseconds so a long interval keeps frames apart), and `fps=1`
 * with `round=up` gives, for slot i, the last frame whose time is at most i × interval: the
 * frame on screen at the cue's start (half a millisecond of slack for rounding). `tpad`
 * repeats the last frame for slots past it (an audio track longer than the picture).
 * The sprite appears only at the end, so a second output, one 2×2 frame a second to
 * nowhere, carries the decoded time that `-progress` reports.
 */
export function buildArgs(plan: StoryboardPlan, probe: MediaProbe, paths: { input: string; output: string }, watermark?: PreparedWatermark): string[] {
  // A watermark goes on each tile, laid out for the tile's size; its image, if any, is input 1.
  const overlay = watermark && ffmpegOverlay(watermark, { width: plan.tileWidth, height: plan.tileHeight });
  const filters = [
    "tpad=stop=-1:stop_mode=clone",
    "settb=AVTB",
    `setpts=(T-0.0005)/${seconds(plan.interval)}/TB`,
    "fps=1:round=up:start_time=0",
    `trim=end_frame=${plan.count}`,
    `scale=${plan.tileWidth}:${plan.tileHeight}`,
    "setsar=1",
    ...(overlay ? [`null[tile];${overlay.filter("tile", "marked")};[marked]null`] : []),
    `tile=${plan.columns}x${plan.rows}`,
  ];
  const graph = `[0:${probe.video!.index}]split[tiles][clock];[tiles]${filters.join(",")}[sprite];[clock]fps=1,scale=2:2[progress]`;
  return [
    ...inputOptions(paths.input), "-i", paths.input, ...(overlay?.inputs ?? []), "-filter_complex", graph,
    "-map", "[sprite]", "-frames:v", "1", "-c:v", "png", "-compression_level", "1", "-f", "image2", "-update", "1", paths.output,
    "-map", "[progress]", "-f", "null", "-",
  ];
}

/** WebVTT time: `hh:mm:ss.mmm`. */
export function vttTime(s: number): string {
  const ms = Math.round(s * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

/** The WebVTT file: cue i from tile i's time to the next one's (the last to the end), pointing at its tile. */
export function storyboardVtt(plan: StoryboardPlan, sprite: string): string {
  const cues = Array.from({ length: plan.count }, (_, i) => {
    const start = i * plan.interval;
    const end = i === plan.count - 1 ? plan.duration : (i + 1) * plan.interval;
    const x = (i % plan.columns) * plan.tileWidth;
    const y = Math.floor(i / plan.columns) * plan.tileHeight;
    return `${vttTime(start)} --> ${vttTime(end)}\n${sprite}#xywh=${x},${y},${plan.tileWidth},${plan.tileHeight}\n`;
  });
  return `WEBVTT\n\n${cues.join("\n")}`;
}

export async function videoStoryboard(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoStoryboard">> {
  // The tiles come from a decode of the whole video: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { video: true });
  const plan = planStoryboard(params, probe, ctx.config);
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(5);

  const png = join(ctx.workDir, "sprite.png");
  const sprite = spriteName(params.format);
  try {
    await runFfmpeg(buildArgs(plan, probe, { input: ctx.input.source, output: png }, watermark || undefined), {
      signal: ctx.signal,
      timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
      task: `tiling ${plan.count} frames`,
      durationS: probe.duration,
      onProgress: (fraction) => ctx.setProgress(5 + 85 * fraction),
    });
    throwIfAborted(ctx.signal);
    ctx.setProgress(90);
    const image = sharp(await readToolFile(png), { limitInputPixels: ctx.config.MAX_INPUT_PIXELS });
    const encoded = params.format === "webp" ? image.webp({ quality: params.quality }) : image.jpeg({ quality: params.quality, mozjpeg: true });
    const output = ctx.addOutput(`storyboard/${sprite}`, FRAME_CONTENT_TYPES[params.format]);
    const info = await step("sharp encode", () => encoded.toFile(output)).catch((error: unknown) => {
      throw imageFailure(error);
    });

    const vtt = storyboardVtt(plan, sprite);
    const vttPath = ctx.addOutput(VTT_NAME, "text/vtt");
    await claimFile(vttPath);
    await writeFile(vttPath, vtt);
    return {
      url: VTT_NAME,
      size: Buffer.byteLength(vtt),
      sprite: { url: `storyboard/${sprite}`, size: info.size, width: info.width, height: info.height, format: params.format },
      tile: { width: plan.tileWidth, height: plan.tileHeight, columns: plan.columns, rows: plan.rows, count: plan.count, interval: round3(plan.interval) },
      duration: round3(plan.duration),
      source: probedVideoSource(ctx, probe),
    };
  } finally {
    await rm(png, { force: true });
  }
}

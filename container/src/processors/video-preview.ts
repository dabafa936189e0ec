// videoPreview: a short animated WebP or GIF, or a silent H.264 MP4, of a span of the video
// (given, or around a third of it) or of segments spread over it, in one ffmpeg run; the
// result's frames and duration are read from the output (sharp for WebP and GIF, ffprobe for MP4).
import { ffmpegOverlay, prepareWatermark, type PreparedWatermark } from "../tools/watermark.ts";
import { stat } from "node:fs/promises";
import { sharp } from "../tools/image-process.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { JobFailure, stopped, throwIfAborted } from "../errors.ts";
import { step } from "../steps.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg, seconds } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { fps as videoFps, frameTimeAt, seekPoint } from "../tools/frames.ts";
import { runTool } from "../tools/spawn.ts";
import { round3, scaledSize } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";
import { probedVideoSource } from "./video-extraction.ts";

type Params = JobParams<"videoPreview">;
type Format = Params["format"];

const CONTENT_TYPES: Record<Format, string> = { webp: "image/webp", gif: "image/gif", mp4: "video/mp4" };

/** libwebp's quality (0–100) for the animated WebP: libwebp's own default (cwebp -q). */
const WEBP_QUALITY = 75;
/** libx264's constant-rate factor for the MP4: compressVideo's `medium`. */
const MP4_CRF = 23;

export interface Span {
  start: number;
  duration: number;
}

/**
 * The span of the video the preview shows. A `start` is kept, the span cut short by the
 * end; a start at or past the end is the user's mistake, said with the video's length.
 * Without one, the span is centred on a third of the video (past an opening title, before
 * the end), moved to fit inside it; a video shorter than `duration` is shown whole.
 */
export function previewSpan(params: Pick<Params, "start" | "duration">, videoDurationS: number): Span {
  const d = videoDurationS;
  if (params.start !== undefined) {
    if (params.start >= d) {
      throw new JobFailure(
        "invalid_input",
        `start ${params.start} s is at or past the end of the video, which is ${describeDuration(d)} long; use a start from 0 to below ${round3(d)}`,
      );
    }
    return { start: params.start, duration: Math.min(params.duration, d - params.start) };
  }
  const duration = Math.min(params.duration, d);
  return { start: Math.max(0, Math.min(d / 3 - duration / 2, d - duration)), duration };
}

/**
 * With `segments`: that many clips of `duration` ÷ `segments` seconds, each centred in its
 * equal part of the video (so they never overlap), in order. A video no longer than
 * `duration` is shown whole, as one span. Without: the one span of previewSpan.
 */
export function previewSpans(params: Pick<Params, "start" | "duration" | "segments">, videoDurationS: number): Span[] {
  const d = videoDurationS;
  const n = params.segments;
  if (n === undefined) return [previewSpan(params, d)];
  if (params.duration >= d) return [{ start: 0, duration: d }];
  const length = params.duration / n;
  return Array.from({ length: n }, (_, i) => ({ start: Math.max(0, Math.min(((i + 0.5) * d) / n - length / 2, d - length)), duration: length }));
}

/** The frame rate asked for, never more than the video's own (no frame is shown twice). */
export function previewFps(fps: number, probe: MediaProbe): number {
  const own = probe.video!.frameRate;
  return own === null ? fps : Math.min(fps, round3(own));
}

export interface Plan {
  /** One span, or the segments in the order shown. */
  spans: Span[];
  /** Seconds: the spans' lengths together. */
  durationS: number;
  fps: number;
  width: number;
  height: number;
  /** The most frames the run may write: the span at the frame rate, rounded up. */
  maxFrames: number;
}

export function previewPlan(params: Params, probe: MediaProbe): Plan {
  const video = probe.video!;
  // Each span starts at the frame on screen at its start (the video's frame grid, as a
  // thumbnail's time) and is at least that frame long, so a start inside the last frame
  // still shows that frame.
  const frame = 1 / videoFps(probe);
  const spans = previewSpans(params, probe.duration).map((span) => {
    const start = frameTimeAt(span.start, probe);
    return { start, duration: Math.min(probe.duration - start, Math.max(frame, span.duration)) };
  });
  const durationS = spans.reduce((sum, span) => sum + span.duration, 0);
  const fps = previewFps(params.fps, probe);
  // Even sides (4:2:0 needs them for the MP4; the same size for every format), never enlarged.
  const size = scaledSize(video.width, video.height, params.width);
  return { spans, durationS, fps, ...size, maxFrames: Math.max(1, Math.ceil(durationS * fps - 1e-6)) };
}

export function buildArgs(params: Params, probe: MediaProbe, plan: Plan, paths: { input: string; output: string }, watermark?: PreparedWatermark): string[] {
  // Each span is an input of its own (the same file, seeked): ffmpeg decodes only from the
  // keyframe before each; segments are joined (concat) before the frame rate and the scale.
  const stream = probe.video!.index;
  const joined = plan.spans.length === 1 ? `[0:${stream}]` : `${plan.spans.map((_, i) => `[${i}:${stream}]`).join("")}concat=n=${plan.spans.length}:v=1:a=0,`;
  const resized = `${joined}fps=${plan.fps},scale=${plan.width}:${plan.height}:flags=lanczos,setsar=1`;
  // A watermark goes on the scaled frames, laid out for the preview's size; its image, if any, is the input after the spans.
  const overlay = watermark && ffmpegOverlay(watermark, { width: plan.width, height: plan.height }, plan.spans.length);
  const scaled = overlay ? `${resized}[resized];${overlay.filter("resized", "marked")};[marked]null` : resized;
  // GIF: the palette made from these very frames and used on them in the same run (split),
  // each frame redrawing only the rectangle that changed (diff_mode=rectangle), with ordered
  // dither, which compresses better than error diffusion and does not crawl from frame to
  // frame. The palette counts every pixel of every frame (stats_mode=full): with
  // stats_mode=diff, ffmpeg 5.1 left out the colours of a still scene after a cut (a flat
  // yellow second after a blue one came out green; container/test/video-preview.test.ts).
  const graph =
    params.format === "gif"
      ? `${scaled},split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle[out]`
      : `${scaled}${params.format === "mp4" ? ",format=yuv420p" : ""}[out]`;
  // Seeking half a frame early makes ffmpeg's first frame (the first at or after the seek) the span's own (seekPoint).
  const args = plan.spans.flatMap((span) => [...inputOptions(paths.input), "-ss", seconds(seekPoint(span.start, probe)), "-t", seconds(span.duration), "-i", paths.input]);
  if (overlay) args.push(...overlay.inputs);
  args.push("-filter_complex", graph, "-map", "[out]", "-an", "-sn", "-dn", "-frames:v", String(plan.maxFrames));
  switch (params.format) {
    case "webp":
      // The webp muxer's -loop is a play count: 0 is forever, 1 is once.
      args.push("-c:v", "libwebp_anim", "-lossless", "0", "-quality", String(WEBP_QUALITY), "-loop", params.loop ? "0" : "1", "-f", "webp");
      break;
    case "gif":
      // The gif muxer's -loop is a repeat count: 0 is forever, -1 is no repeat.
      args.push("-loop", params.loop ? "0" : "-1", "-f", "gif");
      break;
    case "mp4":
      args.push("-c:v", "libx264", "-preset", "medium", "-crf", String(MP4_CRF), "-movflags", "+faststart", "-f", "mp4");
      break;
  }
  args.push(paths.output);
  return args;
}

export interface Probed {
  width: number;
  height: number;
  frames: number;
  /** Seconds. */
  duration: number;
}

/**
 * An animated WebP's or GIF's frames and length, from its header and each frame's delay
 * (sharp). libwebp stores a run of identical frames once, with their delays summed, so a
 * still stretch is one frame; a preview that is still throughout is a plain WebP of one
 * picture, with no delay: its length is then the span's, `stillS`.
 */
export async function probeAnimation(path: string, stillS: number): Promise<Probed> {
  const meta = await step("sharp metadata", () => sharp(path, { animated: true, limitInputPixels: false }).metadata());
  const delays = meta.delay ?? [];
  return {
    width: meta.width ?? 0,
    height: meta.pageHeight ?? meta.height ?? 0,
    frames: meta.pages ?? 1,
    duration: delays.length > 0 ? delays.reduce((sum, ms) => sum + ms, 0) / 1000 : stillS,
  };
}

/** An MP4's picture size, frame count (its sample table's) and length, from ffprobe. */
export async function probeMp4(path: string, signal: AbortSignal): Promise<Probed> {
  const args = ["-v", "error", ...inputOptions(), "-select_streams", "v:0", "-show_entries", "stream=width,height,nb_frames,duration", "-print_format", "json", path];
  const run = await runTool("ffprobe", args, { signal, timeoutMs: 30_000 });
  if (run.aborted) throw stopped(signal);
  const stream = (JSON.parse(run.code === 0 ? run.stdout : "{}") as { streams?: Record<string, string | number>[] }).streams?.[0];
  if (!stream) throw new JobFailure("processing_failed", "the preview MP4 written has no video stream", { cause: run.stderr });
  return { width: Number(stream.width), height: Number(stream.height), frames: Number(stream.nb_frames), duration: Number(stream.duration) };
}

export async function videoPreview(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoPreview">> {
  const probe = await probeInput(ctx, { video: true });
  const plan = previewPlan(params, probe);
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(8);

  const name = `preview.${params.format}`;
  const output = ctx.addOutput(name, CONTENT_TYPES[params.format]);
  await runFfmpeg(buildArgs(params, probe, plan, { input: ctx.input.source, output }, watermark || undefined), {
    signal: ctx.signal,
    // Decoding starts at the keyframe before the span: the whole video's limit, not the span's.
    timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
    durationS: plan.durationS,
    onProgress: (f) => ctx.setProgress(10 + f * 85),
    task: "making the preview",
  });
  throwIfAborted(ctx.signal);

  const made = params.format === "mp4" ? await probeMp4(output, ctx.signal) : await probeAnimation(output, plan.durationS);
  if (made.frames < 1) {
    throw new JobFailure("processing_failed", `the preview came out empty (no frame from ${round3(plan.spans[0]!.start)} s)`);
  }
  return {
    url: name,
    size: (await stat(output)).size,
    width: made.width,
    height: made.height,
    format: params.format,
    // One frame (a span inside the last frame, a still WebP) has no length of its own: a GIF
    // writes it with no delay, the MP4 with one frame's time at `fps`. It stands for the span.
    duration: round3(made.frames === 1 ? plan.durationS : made.duration),
    frameRate: plan.fps,
    frames: made.frames,
    start: round3(plan.spans[0]!.start),
    ...(params.segments === undefined ? {} : { segments: plan.spans.map((span) => ({ start: round3(span.start), duration: round3(span.duration) })) }),
    source: probedVideoSource(ctx, probe),
  };
}

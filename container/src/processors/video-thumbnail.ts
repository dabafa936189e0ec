// videoThumbnail: one frame as JPEG, PNG or WebP, at a time given in seconds or chosen
// ("auto": not black, not mid-fade, sharp). `timestamp` in the result is the start of
// the frame actually used, on the video's frame grid.
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobCancelled, JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration, EarlyFfmpeg, runFfmpeg, runReadyFfmpeg, type FfmpegOptions } from "../tools/ffmpeg.ts";
import { probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { representativeFrameTime } from "../tools/frame-choice.ts";
import {
  checkBox,
  earlyGrabArgs,
  earlyGrabGraph,
  ffmpegWritesJpeg,
  FRAME_CONTENT_TYPES,
  frameBox,
  frameTimeAt,
  grabArgs,
  grabFrame,
  grabJpeg,
  jpegByFfmpeg,
  readyGrabGraph,
  readyGrabSource,
} from "../tools/frames.ts";
import { setReadyJpegQuality, takeReadyGrab, type ReadyTool } from "../tools/ready-tools.ts";
import { round3 } from "./compress-video.ts";
import { prepareWatermark, sharpOverlay } from "../tools/watermark.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"videoThumbnail">;

/**
 * `output` is the JPEG itself when ffmpeg writes it (tools/frames.ts jpegByFfmpeg: grabJpeg
 * reads it), else the frame's raw pixels (framePixels), which the processor encodes to the
 * format asked for (grabFrame).
 */
export function buildArgs(params: Params, probe: MediaProbe, paths: { input: string; output: string; time: number }): string[] {
  return grabArgs(paths.input, probe, paths.time, frameBox(probe.video!, params), paths.output, jpegByFfmpeg(params, probe));
}

/** The frame time for a numeric timestamp; past the end is the user's mistake, said plainly. */
export function requestedFrameTime(seconds: number, probe: MediaProbe): number {
  if (seconds > probe.duration) {
    throw new JobFailure(
      "invalid_input",
      `timestamp ${seconds} s is past the end of the video, which is ${describeDuration(probe.duration)} long; use a time from 0 to ${round3(probe.duration)}`,
    );
  }
  return frameTimeAt(seconds, probe);
}

/**
 * For a time in seconds, the grab's ffmpeg is already running when the probe answers, and
 * has opened the input and sought to the time while the probe ran:
 * - a ready grab (tools/ready-tools.ts), started before the job, when one waits and the
 *   input can answer its URL: no process starts for the grab (tools/frames.ts readyGrabSource);
 * - else an early one, started now beside the probe (tools/frames.ts earlyGrabArgs).
 * The probe's verdict gives it its filter, or kills it unused. "auto" first samples windows
 * that need the probe.
 *
 * A JPEG sharp has nothing to do to is written by ffmpeg itself (tools/frames.ts
 * ffmpegWritesJpeg), at a quality its encoder fixes when it starts: a ready grab, started
 * before the job, writes one at the quality the last such job asked for (and raw pixels for
 * sharp); an early grab, at this job's.
 */
interface Started {
  ready: ReadyTool | null;
  early: EarlyFfmpeg | null;
  /** The quality the early grab writes a JPEG at, when it does (else it writes raw pixels). */
  earlyJpeg: number | undefined;
}

export async function videoThumbnail(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoThumbnail">> {
  const raw = join(ctx.workDir, "thumbnail-frame.raw");
  const name = `thumbnail.${params.format}`;
  // Here already: an early grab may write the JPEG to it.
  const output = ctx.addOutput(name, FRAME_CONTENT_TYPES[params.format]);
  const answer = ctx.input.answer;
  const jpeg = ffmpegWritesJpeg(params) ? params.quality : undefined;
  // The next jobs likely ask for the same: the grabs started after this one write it.
  if (jpeg !== undefined) setReadyJpegQuality(jpeg);
  const ready = params.timestamp !== "auto" && answer ? (takeReadyGrab() ?? null) : null;
  if (ready) ready.open(answer!, readyGrabSource(ready.url, params.timestamp as number));
  const early =
    params.timestamp === "auto" || ready
      ? null
      : new EarlyFfmpeg(earlyGrabArgs(ctx.input.source, params.timestamp, jpeg === undefined ? raw : output, jpeg), {
          signal: ctx.signal,
          waitLimitMs: ctx.config.JOB_TIMEOUT_MS,
          graph: "output",
        });
  try {
    return await thumbnail(params, ctx, { raw, output, name }, { ready, early, earlyJpeg: jpeg });
  } finally {
    ready?.release();
    await early?.discard();
  }
}

async function thumbnail(params: Params, ctx: ProcessorContext, files: { raw: string; output: string; name: string }, { ready, early, earlyJpeg }: Started): Promise<StoredResult<"videoThumbnail">> {
  const { raw, output, name } = files;
  const probe = await probeInput(ctx, { video: true });
  const box = frameBox(probe.video!, params);
  checkBox(box, ctx.config);
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(10);
  const time = params.timestamp === "auto" ? await representativeFrameTime(ctx, probe) : requestedFrameTime(params.timestamp, probe);
  ctx.setProgress(60);
  throwIfAborted(ctx.signal);

  const overlay = watermark && (await sharpOverlay(watermark, box));
  const answer = ctx.input.answer;
  // What the probe leaves to ffmpeg: a video with alpha goes to sharp after all.
  const jpeg = jpegByFfmpeg(params, probe);
  // A ready grab writes ffmpeg's JPEG only at the quality it started with; else its raw pixels go to sharp.
  const readyJpeg = jpeg !== undefined && ready?.jpeg?.quality === jpeg;
  const readyGraph = ready?.alive && answer && params.timestamp !== "auto" ? readyGrabGraph(probe, params.timestamp, time, box, readyJpeg ? jpeg : undefined) : null;
  // Not for this input: killed now (it has opened the input), and replaced for the next job.
  if (!readyGraph) ready?.release();
  // Its encoder was fixed at its start: used only for the output it writes.
  const earlyGraph = !readyGraph && early && params.timestamp !== "auto" && jpeg === earlyJpeg ? earlyGrabGraph(probe, params.timestamp, time, box, jpeg) : null;
  if (!earlyGraph) await early?.discard();
  const byFfmpeg = jpeg !== undefined && (!readyGraph || readyJpeg);
  // The ready grab writes its frame where it was told at its start; a run of grabArgs after it (a decoding seek) writes there too.
  const written = readyGraph ? (byFfmpeg ? ready!.jpeg!.output : ready!.output) : byFfmpeg ? output : raw;
  const args = grabArgs(ctx.input.source, probe, time, box, written, byFfmpeg ? jpeg : undefined);
  const started = readyGraph
    ? // What only the movie source fails on (a seek it cannot make) is run as grabArgs; a cancel or the time limit is not.
      (options: FfmpegOptions) =>
        runReadyFfmpeg(ready!, answer!, readyGraph, options).catch((error: unknown) =>
          error instanceof JobCancelled || (error instanceof JobFailure && error.code === "processing_timeout") || ctx.signal.aborted ? Promise.reject(error) : runFfmpeg(args, options),
        )
    : earlyGraph
      ? (options: FfmpegOptions) => early!.run(earlyGraph, options)
      : undefined;
  const image = byFfmpeg
    ? await grabJpeg(ctx, probe, args, { time, written, output, box }, started)
    : await grabFrame(ctx, probe, args, { time, raw: written, format: params.format, quality: params.quality, output, box, overlay }, started);
  return {
    url: name,
    size: image.size,
    width: image.width,
    height: image.height,
    format: params.format,
    timestamp: round3(time),
    source: { size: ctx.input.size, width: probe.video!.width, height: probe.video!.height, duration: round3(probe.duration) },
  };
}

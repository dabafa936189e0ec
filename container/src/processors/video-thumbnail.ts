// videoThumbnail: one frame as JPEG, PNG or WebP, at a time given in seconds or chosen
// ("auto": not black, not mid-fade, sharp). `timestamp` in the result is the start of
// the frame actually used, on the video's frame grid.
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobCancelled, JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration, EarlyFfmpeg, runFfmpeg, runReadyFfmpeg, type FfmpegOptions } from "../tools/ffmpeg.ts";
import { probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { representativeFrameTime } from "../tools/frame-choice.ts";
import { checkBox, earlyGrabArgs, earlyGrabGraph, FRAME_CONTENT_TYPES, frameBox, frameTimeAt, grabArgs, grabFrame, readyGrabGraph, readyGrabSource } from "../tools/frames.ts";
import { takeReadyGrab, type ReadyTool } from "../tools/ready-tools.ts";
import { round3 } from "./compress-video.ts";
import { prepareWatermark, sharpOverlay } from "../tools/watermark.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"videoThumbnail">;

/** `output` is the frame's raw pixels (tools/frames.ts framePixels); the processor encodes them to the format asked for. */
export function buildArgs(params: Params, probe: MediaProbe, paths: { input: string; output: string; time: number }): string[] {
  return grabArgs(paths.input, probe, paths.time, frameBox(probe.video!, params), paths.output);
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
 */
interface Started {
  ready: ReadyTool | null;
  early: EarlyFfmpeg | null;
}

export async function videoThumbnail(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoThumbnail">> {
  const raw = join(ctx.workDir, "thumbnail-frame.raw");
  const answer = ctx.input.answer;
  const ready = params.timestamp !== "auto" && answer ? (takeReadyGrab() ?? null) : null;
  if (ready) ready.open(answer!, readyGrabSource(ready.url, params.timestamp as number));
  const early =
    params.timestamp === "auto" || ready
      ? null
      : new EarlyFfmpeg(earlyGrabArgs(ctx.input.source, params.timestamp, raw), { signal: ctx.signal, waitLimitMs: ctx.config.JOB_TIMEOUT_MS, graph: "output" });
  try {
    return await thumbnail(params, ctx, raw, { ready, early });
  } finally {
    ready?.release();
    await early?.discard();
  }
}

async function thumbnail(params: Params, ctx: ProcessorContext, raw: string, { ready, early }: Started): Promise<StoredResult<"videoThumbnail">> {
  const probe = await probeInput(ctx, { video: true });
  const box = frameBox(probe.video!, params);
  checkBox(box, ctx.config);
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(10);
  const time = params.timestamp === "auto" ? await representativeFrameTime(ctx, probe) : requestedFrameTime(params.timestamp, probe);
  ctx.setProgress(60);
  throwIfAborted(ctx.signal);

  const name = `thumbnail.${params.format}`;
  const output = ctx.addOutput(name, FRAME_CONTENT_TYPES[params.format]);
  const overlay = watermark && (await sharpOverlay(watermark, box));
  const answer = ctx.input.answer;
  const readyGraph = ready?.alive && answer && params.timestamp !== "auto" ? readyGrabGraph(probe, params.timestamp, time, box) : null;
  // Not for this input: killed now (it has opened the input), and replaced for the next job.
  if (!readyGraph) ready?.release();
  const earlyGraph = !readyGraph && early && params.timestamp !== "auto" ? earlyGrabGraph(probe, params.timestamp, time, box) : null;
  if (!earlyGraph) await early?.discard();
  // The ready grab writes its frame where it was told at its start; a run of grabArgs after it (a decoding seek) writes there too.
  const frameRaw = readyGraph ? ready!.output : raw;
  const args = buildArgs(params, probe, { input: ctx.input.source, output: frameRaw, time });
  const started = readyGraph
    ? // What only the movie source fails on (a seek it cannot make) is run as grabArgs; a cancel or the time limit is not.
      (options: FfmpegOptions) =>
        runReadyFfmpeg(ready!, answer!, readyGraph, options).catch((error: unknown) =>
          error instanceof JobCancelled || (error instanceof JobFailure && error.code === "processing_timeout") || ctx.signal.aborted ? Promise.reject(error) : runFfmpeg(args, options),
        )
    : earlyGraph
      ? (options: FfmpegOptions) => early!.run(earlyGraph, options)
      : undefined;
  const image = await grabFrame(ctx, probe, args, { time, raw: frameRaw, format: params.format, quality: params.quality, output, box, overlay }, started);
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

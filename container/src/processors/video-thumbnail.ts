// videoThumbnail: one frame as JPEG, PNG or WebP, at a time given in seconds or chosen
// ("auto": not black, not mid-fade, sharp). `timestamp` in the result is the start of
// the frame actually used, on the video's frame grid.
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration, EarlyFfmpeg } from "../tools/ffmpeg.ts";
import { probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { representativeFrameTime } from "../tools/frame-choice.ts";
import { checkBox, earlyGrabArgs, earlyGrabGraph, FRAME_CONTENT_TYPES, frameBox, frameTimeAt, grabArgs, grabFrame } from "../tools/frames.ts";
import { round3 } from "./compress-video.ts";
import { prepareWatermark, sharpOverlay } from "../tools/watermark.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"videoThumbnail">;

/** `output` is an intermediate PNG; the processor encodes it to the format asked for. */
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

export async function videoThumbnail(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoThumbnail">> {
  const png = join(ctx.workDir, "thumbnail-frame.png");
  // A time in seconds: ffmpeg starts beside the probe and opens the input while it runs
  // (tools/frames.ts earlyGrabArgs); the probe's verdict kills it unused. "auto" first
  // samples windows that need the probe.
  const early =
    params.timestamp === "auto"
      ? null
      : new EarlyFfmpeg(earlyGrabArgs(ctx.input.source, params.timestamp, png), { signal: ctx.signal, waitLimitMs: ctx.config.JOB_TIMEOUT_MS, graph: "output" });
  try {
    return await thumbnail(params, ctx, png, early);
  } finally {
    await early?.discard();
  }
}

async function thumbnail(params: Params, ctx: ProcessorContext, png: string, early: EarlyFfmpeg | null): Promise<StoredResult<"videoThumbnail">> {
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
  const args = buildArgs(params, probe, { input: ctx.input.source, output: png, time });
  const graph = early && params.timestamp !== "auto" ? earlyGrabGraph(probe, params.timestamp, time, box) : null;
  if (!graph) await early?.discard();
  const overlay = watermark && (await sharpOverlay(watermark, box));
  const image = await grabFrame(ctx, probe, args, { time, png, format: params.format, quality: params.quality, output, box, overlay }, early && graph ? { ffmpeg: early, graph } : undefined);
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

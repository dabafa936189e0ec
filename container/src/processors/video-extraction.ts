// videoExtraction: from one download, the audio as MP3 and/or up to 30 still frames chosen
// by count, percentage, interval or timestamp. A video without audio is not a failure
// here: `audio` is null and `source.hasAudio` false.
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { MAX_FRAMES } from "../../../src/contract/jobs/video-extraction.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration } from "../tools/ffmpeg.ts";
import { probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { nextNonBlackTime } from "../tools/frame-choice.ts";
import { checkBox, FRAME_CONTENT_TYPES, frameBox, frameTimeAt, grabArgs, grabFrame } from "../tools/frames.ts";
import { round3 } from "./compress-video.ts";
import { buildArgs as buildAudioArgs, encodeMp3, startMp3, type EarlyMp3, type Mp3Output } from "./extract-audio.ts";
import { prepareWatermark, sharpOverlay } from "../tools/watermark.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"videoExtraction">;
type Frames = Exclude<Params["frames"], false>;

/** Times (seconds, on the frame grid) of the frames asked for, in the order asked. */
export function frameTimes(frames: Frames, probe: MediaProbe): number[] {
  const d = probe.duration;
  switch (frames.mode) {
    case "count":
      // The middle of each of `count` equal parts: evenly spread, never the very first or last frame.
      return Array.from({ length: frames.count }, (_, i) => frameTimeAt(((i + 0.5) * d) / frames.count, probe));
    case "percentage":
      return frames.values.map((p) => frameTimeAt((p / 100) * d, probe));
    case "interval": {
      // 0, every, 2×every, … while inside the video; the first MAX_FRAMES of them.
      const n = Math.min(MAX_FRAMES, Math.ceil(d / frames.every - 1e-9));
      return Array.from({ length: Math.max(1, n) }, (_, i) => frameTimeAt(i * frames.every, probe));
    }
    case "timestamps": {
      const late = frames.values.filter((t) => t > d);
      if (late.length > 0) {
        throw new JobFailure(
          "invalid_input",
          `timestamp ${late[0]} s is past the end of the video, which is ${describeDuration(d)} long; use times from 0 to ${round3(d)}`,
        );
      }
      return frames.values.map((t) => frameTimeAt(t, probe));
    }
  }
}

export function frameName(index: number, format: string): string {
  return `frame-${String(index + 1).padStart(2, "0")}.${format}`;
}

export interface Paths {
  input: string;
  /** MP3 output, when audio is asked for and the input has it. */
  audio?: string;
  /** One intermediate file of raw pixels per frame, at its (final) time (tools/frames.ts framePixels). */
  frames: { time: number; output: string }[];
}

export function buildArgs(params: Params, probe: MediaProbe, paths: Paths): { audio: string[] | null; frames: string[][] } {
  const audio =
    params.audio !== false && probe.audio && paths.audio ? buildAudioArgs(params.audio, probe, { input: paths.input, output: paths.audio }) : null;
  if (params.frames === false) return { audio, frames: [] };
  const box = frameBox(probe.video!, params.frames);
  return { audio, frames: paths.frames.map((f) => grabArgs(paths.input, probe, f.time, box, f.output)) };
}

export async function videoExtraction(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoExtraction">> {
  // The MP3 encoder starts beside the probe (as in extractAudio); a video without audio, or one the probe refuses, kills it unused.
  const early = params.audio === false ? null : startMp3(params.audio.quality, "audio.mp3", ctx);
  // The audio encode reads all of the input: the rest downloads at the network's pace while it runs. Frames alone read what they seek to.
  if (params.audio !== false) ctx.input.fillAll();
  try {
    return await extract(params, ctx, early);
  } finally {
    await early?.ffmpeg.discard();
  }
}

async function extract(params: Params, ctx: ProcessorContext, early: EarlyMp3 | null): Promise<StoredResult<"videoExtraction">> {
  const probe = await probeInput(ctx, { video: true });
  const frames = params.frames;
  const box = frames === false ? null : frameBox(probe.video!, frames);
  if (box) checkBox(box, ctx.config);
  const times = frames === false ? [] : frameTimes(frames, probe);
  // One watermark layer for every frame: they share the box.
  const watermark = frames !== false && frames.watermark && box ? await prepareWatermark(frames.watermark, ctx) : undefined;
  const overlay = watermark && box ? await sharpOverlay(watermark, box) : undefined;
  ctx.setProgress(8);

  // Progress: the audio encode and the frames share 10–95 by their expected cost.
  const audioShare = params.audio === false || !probe.audio ? 0 : frames === false ? 1 : 0.4;
  let audio: Mp3Output | null = null;
  if (params.audio !== false && probe.audio && early) {
    audio = await encodeMp3(params.audio.quality, probe, "audio.mp3", ctx, (f) => ctx.setProgress(10 + 85 * audioShare * f), early);
  }
  await early?.ffmpeg.discard();

  const results = [];
  if (frames !== false && box) {
    for (const [i, requested] of times.entries()) {
      throwIfAborted(ctx.signal);
      const time = frames.skipBlackFrames ? await nextNonBlackTime(ctx, probe, requested) : requested;
      const name = frameName(i, frames.format);
      const output = ctx.addOutput(name, FRAME_CONTENT_TYPES[frames.format]);
      const raw = join(ctx.workDir, `frame-${i + 1}.raw`);
      const [args] = buildArgs({ ...params, audio: false }, probe, { input: ctx.input.source, frames: [{ time, output: raw }] }).frames;
      const image = await grabFrame(ctx, probe, args!, { time, raw, format: frames.format, quality: frames.quality, output, box, overlay });
      results.push({ url: name, size: image.size, width: image.width, height: image.height, format: frames.format, timestamp: round3(time) });
      ctx.setProgress(10 + 85 * (audioShare + ((1 - audioShare) * (i + 1)) / times.length));
    }
  }

  return {
    audio,
    frames: results,
    source: probedVideoSource(ctx, probe),
  };
}

/** The result's `source`: the input's facts from its probe. */
export function probedVideoSource(ctx: Pick<ProcessorContext, "input">, probe: MediaProbe): StoredResult<"videoExtraction">["source"] {
  return {
    size: ctx.input.size,
    duration: round3(probe.duration),
    width: probe.video!.width,
    height: probe.video!.height,
    format: probe.format,
    hasAudio: probe.audio !== null,
  };
}

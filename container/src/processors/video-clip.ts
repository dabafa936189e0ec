// videoClip: the part of a video from `start` to `end`. By default frame-accurate: decoded
// from the keyframe before `start`, the clip's first frame is the one at `start`, re-encoded
// to H.264 and AAC. With `fast`, the streams are copied from the keyframe at or before
// `start` (found by ffprobe, reading only that packet): no decode and no loss, seconds for any
// length, and the result says where the clip really begins. Either way only the bytes the
// clip needs are read from the input.
import { stat } from "node:fs/promises";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg, seconds } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { endedEarly, runTool } from "../tools/spawn.ts";
import { AUDIO_BITRATE, CRF, round3, scaledSize } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";

type Params = JobParams<"videoClip">;

/** What MP4 holds as it is: a fast clip of anything else is refused before it is cut. */
const COPYABLE_VIDEO = new Set(["h264", "hevc", "av1", "vp9", "mpeg4"]);
const COPYABLE_AUDIO = new Set(["aac", "mp3", "opus", "flac", "ac3", "eac3", "alac"]);

/** The re-encode of [start, start + length): input seeking decodes from the keyframe before `start` and drops what precedes it. */
export function accurateArgs(params: Params, probe: MediaProbe, paths: { input: string; output: string }, start: number, length: number): string[] {
  const video = probe.video!;
  const size = scaledSize(video.width, video.height);
  const withAudio = probe.audio !== null && !params.stripAudio;
  return [
    ...inputOptions(paths.input), "-ss", seconds(start), "-i", paths.input, "-t", seconds(length),
    "-map", `0:${video.index}`, ...(withAudio ? ["-map", `0:${probe.audio!.index}`] : []),
    "-vf", `scale=${size.width}:${size.height},setsar=1`, "-pix_fmt", "yuv420p",
    "-c:v", "libx264", "-preset", "medium", "-crf", String(CRF.h264[params.quality]),
    ...(withAudio ? ["-c:a", "aac", "-b:a", AUDIO_BITRATE.mp4[params.quality], ...(probe.audio!.channels > 2 ? ["-ac", "2"] : [])] : ["-an"]),
    "-sn", "-dn", "-movflags", "+faststart", "-f", "mp4", paths.output,
  ];
}

/** The stream copy of [keyframe, keyframe + length): packets as they are, timestamps from zero. */
export function fastArgs(params: Params, probe: MediaProbe, paths: { input: string; output: string }, keyframe: number, length: number): string[] {
  const withAudio = probe.audio !== null && !params.stripAudio;
  return [
    ...inputOptions(paths.input), "-ss", seconds(keyframe), "-i", paths.input, "-t", seconds(length),
    "-map", `0:${probe.video!.index}`, ...(withAudio ? ["-map", `0:${probe.audio!.index}`] : []),
    "-c", "copy", "-avoid_negative_ts", "make_zero",
    "-sn", "-dn", "-movflags", "+faststart", "-f", "mp4", paths.output,
  ];
}

/** The time (from the input's start) of the video keyframe at or before `start`: ffprobe seeks there and reads one packet. */
async function keyframeAtOrBefore(input: string, probe: MediaProbe, start: number, signal: AbortSignal): Promise<number> {
  const offset = probe.startTime ?? 0;
  const run = await runTool(
    "ffprobe",
    ["-v", "error", ...inputOptions(input), "-select_streams", `${probe.video!.index}`, "-read_intervals", `${seconds(start + offset)}%+#1`, "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", input],
    { signal, timeoutMs: 30_000 },
  );
  const early = endedEarly(run, signal, "finding the keyframe before start took longer than 30 seconds");
  if (early) throw early;
  const [time, flags] = run.stdout.trim().split("\n")[0]?.split(",") ?? [];
  const found = Number(time) - offset;
  if (run.code !== 0 || !flags?.includes("K") || !Number.isFinite(found)) {
    throw new JobFailure("corrupt_media", "no keyframe could be found before start: the video's index is damaged; leave out fast to re-encode the clip", { cause: new Error(run.stderr.slice(-500)) });
  }
  return Math.max(0, Math.min(found, start));
}

export async function videoClip(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoClip">> {
  const { signal } = ctx;
  const probe = await probeInput(ctx, { video: true });
  if (params.start >= probe.duration) {
    throw new JobFailure("invalid_input", `start (${describeDuration(params.start)}) is at or past the end of the input, which is ${describeDuration(probe.duration)} long`);
  }
  // An end past the input's is its end: the clip is what there is.
  const end = Math.min(params.end ?? probe.duration, probe.duration);
  if (params.fast) {
    const video = probe.video!.codec;
    const audio = params.stripAudio ? undefined : probe.audio?.codec;
    if (!COPYABLE_VIDEO.has(video) || (audio !== undefined && !COPYABLE_AUDIO.has(audio))) {
      throw new JobFailure("unsupported_media", `a fast clip copies the streams into MP4, which cannot hold this input's ${COPYABLE_VIDEO.has(video) ? `${audio} audio` : `${video} video`}; leave out fast to re-encode it${COPYABLE_VIDEO.has(video) ? ", or set stripAudio" : ""}`);
    }
  }
  ctx.setProgress(5);
  const start = params.fast ? await keyframeAtOrBefore(ctx.input.source, probe, params.start, signal) : params.start;
  throwIfAborted(signal);

  const output = ctx.addOutput("clip.mp4", "video/mp4");
  const paths = { input: ctx.input.source, output };
  const length = end - start;
  await runFfmpeg(params.fast ? fastArgs(params, probe, paths, start, length) : accurateArgs(params, probe, paths, start, length), {
    signal,
    // A copy reads and writes packets; an encode decodes from the keyframe before start, then encodes the clip.
    timeoutMs: ffmpegTimeoutMs(params.fast ? length / 10 : length, ctx.config),
    durationS: length,
    onProgress: (f) => ctx.setProgress(10 + f * 85),
    task: params.fast ? "copying the clip" : "encoding the clip",
  });
  throwIfAborted(signal);

  const clip = await probeMedia(output, signal);
  if (!clip.video) throw new JobFailure("processing_failed", "the clip came out without its video");
  return {
    url: "clip.mp4",
    size: (await stat(output)).size,
    start: round3(start),
    end: round3(Math.min(end, start + clip.duration)),
    duration: round3(clip.duration),
    width: clip.video.width,
    height: clip.video.height,
    reencoded: !params.fast,
    source: { size: ctx.input.size, width: probe.video!.width, height: probe.video!.height, duration: round3(probe.duration) },
  };
}

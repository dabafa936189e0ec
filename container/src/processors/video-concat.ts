// videoConcat: two to twenty videos joined into one MP4, in one ffmpeg run. Each is fitted
// inside the join's size (the first video's, or the one asked for) with its aspect kept and
// bars where it differs, brought to one frame rate, its sound to 48 kHz stereo (silence for
// a video without sound, so every part keeps its place); then cut or crossfaded into the
// next, and encoded to H.264 and AAC.
import { stat } from "node:fs/promises";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg, seconds } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { AUDIO_BITRATE, CRF, round3 } from "./compress-video.ts";
import type { ProcessorContext, ProcessorInput } from "./types.ts";

type Params = JobParams<"videoConcat">;

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The join's picture: the size asked for (one side alone keeps the first video's aspect), else the first video's; sides even. */
export function joinSize(params: Pick<Params, "width" | "height">, first: { width: number; height: number }): { width: number; height: number } {
  if (params.width && params.height) return { width: even(params.width), height: even(params.height) };
  if (params.width) return { width: even(params.width), height: even((params.width * first.height) / first.width) };
  if (params.height) return { width: even((params.height * first.width) / first.height), height: even(params.height) };
  return { width: even(first.width), height: even(first.height) };
}

export interface Part {
  source: string;
  probe: MediaProbe;
}

/**
 * The one ffmpeg run: each part fitted, padded, resampled to `fps` and cut to its length, its
 * sound resampled and padded (or made silent) to the same length; then `concat`, or a chain
 * of `xfade` and `acrossfade` where each next part starts `crossfade` s before the last ends.
 */
export function buildArgs(params: Params, parts: Part[], size: { width: number; height: number }, fps: number, output: string): string[] {
  const { width, height } = size;
  const fade = params.crossfade;
  const chains: string[] = [];
  parts.forEach(({ probe }, i) => {
    const d = seconds(probe.duration);
    chains.push(
      `[${i}:${probe.video!.index}]scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,setsar=1,` +
        `fps=${fps},trim=duration=${d},setpts=PTS-STARTPTS,format=yuv420p,settb=AVTB[v${i}]`,
    );
    chains.push(
      probe.audio
        ? `[${i}:${probe.audio.index}]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,apad,atrim=duration=${d},asetpts=PTS-STARTPTS[a${i}]`
        : `anullsrc=r=48000:cl=stereo,atrim=duration=${d}[a${i}]`,
    );
  });
  if (fade === 0) {
    chains.push(`${parts.map((_, i) => `[v${i}][a${i}]`).join("")}concat=n=${parts.length}:v=1:a=1[v][a]`);
  } else {
    // The k-th fade starts where the joined parts so far end, less the fade: their lengths less one fade each before.
    let offset = 0;
    let video = "v0";
    let audio = "a0";
    for (let k = 1; k < parts.length; k++) {
      offset += parts[k - 1]!.probe.duration - fade;
      const [v, a] = k === parts.length - 1 ? ["v", "a"] : [`xv${k}`, `xa${k}`];
      chains.push(`[${video}][v${k}]xfade=transition=fade:duration=${seconds(fade)}:offset=${seconds(offset)}[${v}]`);
      chains.push(`[${audio}][a${k}]acrossfade=d=${seconds(fade)}[${a}]`);
      [video, audio] = [v, a];
    }
  }
  return [
    ...parts.flatMap(({ source }) => [...inputOptions(source), "-i", source]),
    "-filter_complex", chains.join(";"),
    "-map", "[v]", "-map", "[a]",
    "-c:v", "libx264", "-preset", "medium", "-crf", String(CRF.h264[params.quality]), "-pix_fmt", "yuv420p", "-r", String(fps),
    "-c:a", "aac", "-b:a", AUDIO_BITRATE.mp4[params.quality], "-ac", "2",
    "-movflags", "+faststart", "-f", "mp4", output,
  ];
}

export async function videoConcat(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoConcat">> {
  const { signal } = ctx;
  // Every part is read whole, once, by the one encode.
  ctx.input.fillAll();
  const parts: Part[] = [{ source: ctx.input.source, probe: await probeInput(ctx, { video: true }) }];
  for (const [i, url] of params.append.entries()) {
    // Which video could not be fetched or read, for the user: its own message says why.
    const named = (error: unknown) => (error instanceof JobFailure ? new JobFailure(error.code, `append[${i}]: ${error.message}`, { cause: error }) : error);
    const part = await (async () => {
      const input: ProcessorInput = await ctx.openInput(url);
      input.fillAll();
      return { source: input.source, probe: await probeInput({ input, signal, config: ctx.config }, { video: true }) };
    })().catch((error: unknown) => Promise.reject(named(error)));
    parts.push(part);
    ctx.setProgress(2 + Math.round((8 * (i + 1)) / params.append.length));
  }
  const total = parts.reduce((sum, p) => sum + p.probe.duration, 0);
  if (total > ctx.config.MAX_VIDEO_DURATION_S) {
    throw new JobFailure("duration_limit_exceeded", `the videos are ${describeDuration(total)} long together, over the limit of ${describeDuration(ctx.config.MAX_VIDEO_DURATION_S)}`);
  }
  const short = parts.findIndex((p) => p.probe.duration <= params.crossfade);
  if (params.crossfade > 0 && short !== -1) {
    throw new JobFailure(
      "invalid_input",
      `${short === 0 ? "the first video" : `append[${short - 1}]`} is ${describeDuration(parts[short]!.probe.duration)} long, not longer than the ${describeDuration(params.crossfade)} crossfade; ask for a shorter one`,
    );
  }
  const size = joinSize(params, parts[0]!.probe.video!);
  const fps = round3(params.fps ?? parts[0]!.probe.video!.frameRate ?? 30);
  const length = total - params.crossfade * (parts.length - 1);
  const output = ctx.addOutput("joined.mp4", "video/mp4");
  await runFfmpeg(buildArgs(params, parts, size, fps, output), {
    signal,
    timeoutMs: ffmpegTimeoutMs(total, ctx.config),
    durationS: length,
    onProgress: (f) => ctx.setProgress(10 + f * 85),
    task: "joining the videos",
  });
  throwIfAborted(signal);
  const joined = await probeMedia(output, signal);
  return {
    url: "joined.mp4",
    size: (await stat(output)).size,
    duration: round3(joined.duration),
    width: joined.video?.width ?? size.width,
    height: joined.video?.height ?? size.height,
    fps,
    inputs: parts.map(({ probe }) => ({ duration: round3(probe.duration), width: probe.video!.width, height: probe.video!.height, audio: probe.audio !== null })),
  };
}

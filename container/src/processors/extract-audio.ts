// extractAudio: the input's main audio stream as a constant-bitrate MP3 (128, 192 or 320
// kbps). Duration and bitrate are measured on the output (read from its header, as ffprobe
// would); a video without audio fails with no_audio_stream.
import { rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { QualityPreset } from "../../../src/contract/common.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { throwIfAborted } from "../errors.ts";
import { EarlyFfmpeg, ffmpegTimeoutMs } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { readMp3Facts } from "../tools/mp3.ts";
import { round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

export const MP3_KBPS: Record<QualityPreset, number> = { low: 128, medium: 192, high: 320 };

export interface Paths {
  input: string;
  output: string;
}

/** The encoder's options: constant bitrate at the preset's kbps. */
function encoderArgs(quality: QualityPreset): string[] {
  return ["-c:a", "libmp3lame", "-b:a", `${MP3_KBPS[quality]}k`];
}

/** The encode as one command line, once the input is probed: the reference the early run (below) must match byte for byte. */
export function buildArgs(params: { quality: QualityPreset }, probe: MediaProbe, paths: Paths): string[] {
  const audio = probe.audio!;
  // MP3 holds at most two channels: surround is mixed down rather than refused.
  const channels = audio.channels > 2 ? ["-ac", "2"] : [];
  return [
    ...inputOptions(paths.input), "-i", paths.input,
    "-map", `0:${audio.index}`, "-vn", "-sn", "-dn",
    ...encoderArgs(params.quality), ...channels,
    "-f", "mp3", paths.output,
  ];
}

/**
 * The same encode split for an EarlyFfmpeg: the command line, known before the probe, and
 * the filter graph from it: the probe's main audio stream (its index, so the stream chosen
 * is the probe's: the default one, else the first), surround mixed down to stereo exactly
 * as `-ac 2` does (both end in the same aresample conversion; the bytes are equal, tested).
 */
export function earlyArgs(quality: QualityPreset, paths: Paths): string[] {
  return [...inputOptions(paths.input), "-i", paths.input, "-map", "[out]", ...encoderArgs(quality), "-f", "mp3", paths.output];
}

export function earlyGraph(probe: MediaProbe): string {
  const audio = probe.audio!;
  return `[0:${audio.index}]${audio.channels > 2 ? "aformat=channel_layouts=stereo" : "anull"}[out]`;
}

/** An MP3 encode started before the probe (tools/ffmpeg.ts EarlyFfmpeg), writing into the work directory until it has succeeded. */
export interface EarlyMp3 {
  ffmpeg: EarlyFfmpeg;
  path: string;
}

export function startMp3(quality: QualityPreset, name: string, ctx: ProcessorContext): EarlyMp3 {
  const path = join(ctx.workDir, `early-${name}`);
  return { path, ffmpeg: new EarlyFfmpeg(earlyArgs(quality, { input: ctx.input.source, output: path }), { signal: ctx.signal, waitLimitMs: ctx.config.JOB_TIMEOUT_MS }) };
}

export interface Mp3Output {
  url: string;
  size: number;
  duration: number;
  format: "mp3";
  bitrate: string;
}

/** Encodes the audio of a probed input to `name` with the encode started beside its probe (startMp3); shared with videoExtraction. */
export async function encodeMp3(
  quality: QualityPreset,
  probe: MediaProbe,
  name: string,
  ctx: ProcessorContext,
  onProgress: (fraction: number) => void,
  early: EarlyMp3,
): Promise<Mp3Output> {
  await early.ffmpeg.run(earlyGraph(probe), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
    durationS: probe.duration,
    onProgress,
    task: "extracting the audio",
  });
  throwIfAborted(ctx.signal);
  const output = ctx.addOutput(name, "audio/mpeg");
  await rename(early.path, output);
  const facts = (await readMp3Facts(output)) ?? (await probeMp3(output, ctx.signal));
  return {
    url: name,
    size: (await stat(output)).size,
    // The encoder's delay is silence players skip (ffprobe shows it as the start time).
    duration: round3(facts.duration - facts.startTime),
    format: "mp3",
    bitrate: `${Math.round((facts.bitRate ?? MP3_KBPS[quality] * 1000) / 1000)}kbps`,
  };
}

/** The same facts from ffprobe, for an MP3 whose first frame does not hold them. */
async function probeMp3(path: string, signal: AbortSignal): Promise<{ duration: number; startTime: number; bitRate: number | null }> {
  const probe = await probeMedia(path, signal);
  return { duration: probe.duration, startTime: probe.audio?.startTime ?? 0, bitRate: probe.audio?.bitRate ?? probe.bitRate };
}

export async function extractAudio(params: JobParams<"extractAudio">, ctx: ProcessorContext): Promise<StoredResult<"extractAudio">> {
  // The encode reads all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  // The encoder starts beside the probe; the probe's verdict (no audio, too long, not media) kills it unused.
  const early = startMp3(params.quality, "audio.mp3", ctx);
  try {
    const probe = await probeInput(ctx, { audio: true });
    ctx.setProgress(8);
    const mp3 = await encodeMp3(params.quality, probe, "audio.mp3", ctx, (f) => ctx.setProgress(10 + f * 85), early);
    return {
      ...mp3,
      source: {
        size: ctx.input.size,
        duration: round3(probe.duration),
        audioBitrate: probe.audio!.bitRate === null ? null : Math.round(probe.audio!.bitRate),
        audioCodec: probe.audio!.codec,
      },
    };
  } finally {
    await early.ffmpeg.discard();
  }
}

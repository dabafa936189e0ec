// extractAudio: the input's main audio stream as a constant-bitrate MP3 (128, 192 or 320
// kbps). Duration and bitrate are measured on the output (read from its header, as ffprobe
// would); a video without audio fails with no_audio_stream.
import { stat } from "node:fs/promises";
import type { QualityPreset } from "../../../src/contract/common.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { throwIfAborted } from "../errors.ts";
import { ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
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

export function buildArgs(params: { quality: QualityPreset }, probe: MediaProbe, paths: Paths): string[] {
  const audio = probe.audio!;
  // MP3 holds at most two channels: surround is mixed down rather than refused.
  const channels = audio.channels > 2 ? ["-ac", "2"] : [];
  return [
    ...inputOptions(), "-i", paths.input,
    "-map", `0:${audio.index}`, "-vn", "-sn", "-dn",
    "-c:a", "libmp3lame", "-b:a", `${MP3_KBPS[params.quality]}k`, ...channels,
    "-f", "mp3", paths.output,
  ];
}

export interface Mp3Output {
  url: string;
  size: number;
  duration: number;
  format: "mp3";
  bitrate: string;
}

/** Encodes the audio of a probed input to `name`; shared with videoExtraction. */
export async function encodeMp3(
  quality: QualityPreset,
  probe: MediaProbe,
  name: string,
  ctx: ProcessorContext,
  onProgress: (fraction: number) => void,
): Promise<Mp3Output> {
  const output = ctx.addOutput(name, "audio/mpeg");
  await runFfmpeg(buildArgs({ quality }, probe, { input: ctx.input.path, output }), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
    durationS: probe.duration,
    onProgress,
    task: "extracting the audio",
  });
  throwIfAborted(ctx.signal);
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
  const probe = await probeInput(ctx, { audio: true });
  ctx.setProgress(8);
  const mp3 = await encodeMp3(params.quality, probe, "audio.mp3", ctx, (f) => ctx.setProgress(10 + f * 85));
  return {
    ...mp3,
    source: {
      size: ctx.input.size,
      duration: round3(probe.duration),
      audioBitrate: probe.audio!.bitRate === null ? null : Math.round(probe.audio!.bitRate),
      audioCodec: probe.audio!.codec,
    },
  };
}

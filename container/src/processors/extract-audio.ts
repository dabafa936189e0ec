// extractAudio: the input's main audio stream as MP3, AAC (.m4a), Opus, FLAC or WAV,
// optionally normalized to a loudness (tools/loudnorm.ts, two passes). Duration and bitrate
// are measured on the output; a video without audio fails with no_audio_stream.
import { rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { QualityPreset } from "../../../src/contract/common.ts";
import { loudnessTarget, type AudioFormat, type LoudnessTarget } from "../../../src/contract/jobs/extract-audio.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { EarlyFfmpeg, ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { measureFilter, normalizeFilter, parseLoudnormReport, type Loudness } from "../tools/loudnorm.ts";
import { readMp3Facts } from "../tools/mp3.ts";
import { round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

export const MP3_KBPS: Record<QualityPreset, number> = { low: 128, medium: 192, high: 320 };

/** How each format is written: its file, encoder and muxer. */
interface FormatSpec {
  extension: string;
  contentType: string;
  encoder: string;
  /** Kbit/s by quality preset; null for a lossless format, which ignores quality. */
  kbps: Record<QualityPreset, number> | null;
  /** Muxer and its options. */
  container: string[];
  /** Options the format needs whatever the input: sample rate, sample format. */
  fixed: string[];
  /** The most channels kept; more are mixed down to stereo. */
  maxChannels: number;
}

export const AUDIO_FORMATS: Record<AudioFormat, FormatSpec> = {
  mp3: { extension: "mp3", contentType: "audio/mpeg", encoder: "libmp3lame", kbps: MP3_KBPS, container: ["-f", "mp3"], fixed: [], maxChannels: 2 },
  // ffmpeg's native AAC-LC encoder; the index first, so players start before the whole file is read.
  aac: { extension: "m4a", contentType: "audio/mp4", encoder: "aac", kbps: { low: 96, medium: 128, high: 192 }, container: ["-movflags", "+faststart", "-f", "ipod"], fixed: [], maxChannels: 2 },
  // Opus runs at 48 kHz (RFC 7845 §5.1: decoders play at 48 kHz whatever the input's rate).
  opus: { extension: "opus", contentType: "audio/ogg", encoder: "libopus", kbps: { low: 64, medium: 96, high: 160 }, container: ["-f", "opus"], fixed: ["-ar", "48000"], maxChannels: 2 },
  // Lossless: the source's rate and channels (FLAC holds up to 8), 16-bit samples.
  flac: { extension: "flac", contentType: "audio/flac", encoder: "flac", kbps: null, container: ["-f", "flac"], fixed: ["-sample_fmt", "s16"], maxChannels: 8 },
  wav: { extension: "wav", contentType: "audio/wav", encoder: "pcm_s16le", kbps: null, container: ["-f", "wav"], fixed: [], maxChannels: Infinity },
};

export interface Paths {
  input: string;
  output: string;
}

/** The encoder's and muxer's options: for a lossy format, constant (MP3, AAC) or average (Opus) bitrate at the preset's kbps. */
function formatArgs(format: AudioFormat, quality: QualityPreset): string[] {
  const spec = AUDIO_FORMATS[format];
  return ["-c:a", spec.encoder, ...(spec.kbps ? ["-b:a", `${spec.kbps[quality]}k`] : []), ...spec.fixed, ...spec.container];
}

/** The MP3 encode as one command line, once the input is probed: the reference the early run (below) must match byte for byte. */
export function buildArgs(params: { quality: QualityPreset }, probe: MediaProbe, paths: Paths): string[] {
  const audio = probe.audio!;
  // MP3 holds at most two channels: surround is mixed down rather than refused.
  const channels = audio.channels > 2 ? ["-ac", "2"] : [];
  return [
    ...inputOptions(paths.input), "-i", paths.input,
    "-map", `0:${audio.index}`, "-vn", "-sn", "-dn",
    "-c:a", "libmp3lame", "-b:a", `${MP3_KBPS[params.quality]}k`, ...channels,
    "-f", "mp3", paths.output,
  ];
}

/**
 * The same encode split for an EarlyFfmpeg: the command line, known before the probe, and
 * the filter graph from it: the probe's main audio stream (its index, so the stream chosen
 * is the probe's: the default one, else the first), surround mixed down to stereo exactly
 * as `-ac 2` does (both end in the same aresample conversion; the bytes are equal, tested).
 */
export function earlyArgs(quality: QualityPreset, paths: Paths, format: AudioFormat = "mp3"): string[] {
  return [...inputOptions(paths.input), "-i", paths.input, "-map", "[out]", ...formatArgs(format, quality), paths.output];
}

export function earlyGraph(probe: MediaProbe, format: AudioFormat = "mp3"): string {
  return audioGraph(format, probe);
}

/** The graph from the probe's main audio stream to `[out]`: more channels than the format keeps mixed down to stereo, then `filters`. */
function audioGraph(format: AudioFormat, probe: MediaProbe, filters: string[] = []): string {
  const audio = probe.audio!;
  const mix = audio.channels > AUDIO_FORMATS[format].maxChannels ? ["aformat=channel_layouts=stereo"] : [];
  return `[0:${audio.index}]${[...mix, ...filters].join(",") || "anull"}[out]`;
}

/**
 * Back from loudnorm's 192 kHz to the source's rate (48 kHz for Opus; MP3 and AAC then take
 * their encoder's nearest). An aformat, not an aresample: after loudnorm, ffmpeg 5.1 finds
 * no channel layout for an aresample's output ("Cannot select channel layout").
 */
function sourceRate(format: AudioFormat, probe: MediaProbe): string {
  return `aformat=sample_rates=${format === "opus" ? 48_000 : (probe.audio!.sampleRate ?? 48_000)}`;
}

/** An encode started before the probe (tools/ffmpeg.ts EarlyFfmpeg), writing into the work directory until it has succeeded. */
export interface EarlyAudio {
  ffmpeg: EarlyFfmpeg;
  path: string;
  format: AudioFormat;
}
export type EarlyMp3 = EarlyAudio;

export function startEncode(format: AudioFormat, quality: QualityPreset, name: string, ctx: ProcessorContext): EarlyAudio {
  const path = join(ctx.workDir, `early-${name}`);
  return { path, format, ffmpeg: new EarlyFfmpeg(earlyArgs(quality, { input: ctx.input.source, output: path }, format), { signal: ctx.signal, waitLimitMs: ctx.config.JOB_TIMEOUT_MS }) };
}

export function startMp3(quality: QualityPreset, name: string, ctx: ProcessorContext): EarlyMp3 {
  return startEncode("mp3", quality, name, ctx);
}

export interface AudioOutput {
  url: string;
  size: number;
  duration: number;
  format: AudioFormat;
  bitrate: string;
}

export interface Mp3Output extends AudioOutput {
  format: "mp3";
}

/** Runs an early encode of a probed input to its end and stores it as the output `name`. */
async function finishEarly(probe: MediaProbe, name: string, ctx: ProcessorContext, onProgress: (fraction: number) => void, early: EarlyAudio): Promise<string> {
  await early.ffmpeg.run(earlyGraph(probe, early.format), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
    durationS: probe.duration,
    onProgress,
    task: "extracting the audio",
  });
  throwIfAborted(ctx.signal);
  const output = ctx.addOutput(name, AUDIO_FORMATS[early.format].contentType);
  await rename(early.path, output);
  return output;
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
  const output = await finishEarly(probe, name, ctx, onProgress, early);
  return { ...(await describeOutput("mp3", quality, output, name, ctx.signal)), format: "mp3" };
}

/** The output as the result states it: size, and duration and bitrate measured on it. */
async function describeOutput(format: AudioFormat, quality: QualityPreset, output: string, name: string, signal: AbortSignal): Promise<AudioOutput> {
  const size = (await stat(output)).size;
  if (format === "mp3") {
    const facts = (await readMp3Facts(output)) ?? (await probeMp3(output, signal));
    return {
      url: name,
      size,
      // The encoder's delay is silence players skip (ffprobe shows it as the start time).
      duration: round3(facts.duration - facts.startTime),
      format,
      bitrate: `${Math.round((facts.bitRate ?? MP3_KBPS[quality] * 1000) / 1000)}kbps`,
    };
  }
  const probe = await probeMedia(output, signal);
  // Ogg states no stream bitrate: the file's average then, as for FLAC (its container's overhead is small).
  const bitRate = probe.audio?.bitRate ?? probe.bitRate ?? (size * 8) / Math.max(probe.duration, 0.001);
  return { url: name, size, duration: round3(probe.duration), format, bitrate: `${Math.round(bitRate / 1000)}kbps` };
}

/** The same facts from ffprobe, for an MP3 whose first frame does not hold them. */
async function probeMp3(path: string, signal: AbortSignal): Promise<{ duration: number; startTime: number; bitRate: number | null }> {
  const probe = await probeMedia(path, signal);
  return { duration: probe.duration, startTime: probe.audio?.startTime ?? 0, bitRate: probe.audio?.bitRate ?? probe.bitRate };
}

type Normalized = NonNullable<StoredResult<"extractAudio">["loudness"]>;

/**
 * Normalizes and encodes a probed input to `name` in two runs of loudnorm
 * (tools/loudnorm.ts): a measure of the whole input, then the encode with those
 * measurements. A silent input (no measurable loudness) is encoded as it is.
 */
async function encodeNormalized(
  params: JobParams<"extractAudio">,
  target: LoudnessTarget,
  probe: MediaProbe,
  name: string,
  ctx: ProcessorContext,
): Promise<{ output: string; loudness: Normalized }> {
  const input = ctx.input.source;
  const run = (graph: string, output: string[], task: string, progress: [number, number]) =>
    runFfmpeg([...inputOptions(input), "-i", input, "-filter_complex", graph, "-map", "[out]", ...output], {
      signal: ctx.signal,
      timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config),
      durationS: probe.duration,
      onProgress: (f) => ctx.setProgress(progress[0] + f * (progress[1] - progress[0])),
      task,
      logLevel: "info",
    });
  const measured = await run(audioGraph(params.format, probe, [measureFilter(target)]), ["-f", "null", "-"], "measuring the loudness", [10, 50]);
  const before = parseLoudnormReport(measured.stderr);
  if (!before) throw new JobFailure("processing_failed", "measuring the loudness failed", { cause: measured.stderr.slice(-4000) });
  throwIfAborted(ctx.signal);

  const path = join(ctx.workDir, `normalized-${name}`);
  const measuredInput = before.input;
  const graph = measuredInput ? audioGraph(params.format, probe, [normalizeFilter(target, { ...before, input: measuredInput }), sourceRate(params.format, probe)]) : audioGraph(params.format, probe);
  const encoded = await run(graph, [...formatArgs(params.format, params.quality), path], "extracting the audio", [50, 95]);
  throwIfAborted(ctx.signal);
  const output = ctx.addOutput(name, AUDIO_FORMATS[params.format].contentType);
  await rename(path, output);
  if (!measuredInput) return { output, loudness: { before: null, after: null, mode: "none" } };
  const after = parseLoudnormReport(encoded.stderr);
  if (!after) throw new JobFailure("processing_failed", "normalizing the loudness failed", { cause: encoded.stderr.slice(-4000) });
  return { output, loudness: { before: rounded(measuredInput), after: rounded(after.output), mode: after.mode } };
}

function rounded(loudness: Loudness): Loudness {
  return loudness && { integratedLufs: round2(loudness.integratedLufs), truePeakDb: round2(loudness.truePeakDb), lra: round2(loudness.lra) };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** `normalize` as asked: null for none, `true` as every default. */
function loudnessGoal(normalize: JobParams<"extractAudio">["normalize"]): LoudnessTarget | null {
  if (normalize === false) return null;
  return normalize === true ? loudnessTarget.parse({}) : normalize;
}

export async function extractAudio(params: JobParams<"extractAudio">, ctx: ProcessorContext): Promise<StoredResult<"extractAudio">> {
  // The encode reads all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const name = `audio.${AUDIO_FORMATS[params.format].extension}`;
  const target = loudnessGoal(params.normalize);
  // The encoder starts beside the probe; the probe's verdict (no audio, too long, not media) kills it unused.
  // Not to normalize: the encode then needs the first pass's measurements of the whole input.
  const early = target ? null : startEncode(params.format, params.quality, name, ctx);
  try {
    const probe = await probeInput(ctx, { audio: true });
    ctx.setProgress(8);
    let output: string;
    let loudness: Normalized | undefined;
    if (target) ({ output, loudness } = await encodeNormalized(params, target, probe, name, ctx));
    else output = await finishEarly(probe, name, ctx, (f) => ctx.setProgress(10 + f * 85), early!);
    return {
      ...(await describeOutput(params.format, params.quality, output, name, ctx.signal)),
      ...(loudness ? { loudness } : {}),
      source: {
        size: ctx.input.size,
        duration: round3(probe.duration),
        audioBitrate: probe.audio!.bitRate === null ? null : Math.round(probe.audio!.bitRate),
        audioCodec: probe.audio!.codec,
      },
    };
  } finally {
    await early?.ffmpeg.discard();
  }
}

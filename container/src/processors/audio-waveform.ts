// audioWaveform: the input's main audio stream decoded to mono 16-bit PCM on ffmpeg's stdout,
// reduced as it arrives to one min/max pair per 1/pointsPerSecond s (never held whole), written
// as audiowaveform's JSON (version 2, 8 bits) and drawn into a PNG by the image tool.
import { writeFile } from "node:fs/promises";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { claimFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { step } from "../steps.ts";
import { ffmpegTimeoutMs, runFfmpegPipe } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { imageFailure } from "../tools/image.ts";
import { sharp } from "../tools/image-process.ts";
import { round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";

type Params = JobParams<"audioWaveform">;

export const PNG_NAME = "waveform.png";
export const JSON_NAME = "waveform.json";

/** The decode's rate is at least this: the peaks of all up to 8 kHz (speech, most of music's energy), at 32 KB a second. */
const MIN_RATE_HZ = 16_000;

/**
 * The rate the audio is decoded at and the samples in each peak: a whole number of samples a
 * peak and exactly `pointsPerSecond` peaks a second, so that peak i starts at i / pointsPerSecond
 * s as peaks.js computes it (index × samples_per_pixel / sample_rate).
 */
export function peakRate(pointsPerSecond: number): { sampleRate: number; samplesPerPixel: number } {
  const samplesPerPixel = Math.ceil(MIN_RATE_HZ / pointsPerSecond);
  return { sampleRate: samplesPerPixel * pointsPerSecond, samplesPerPixel };
}

/** Min and max of each run of `samplesPerPixel` samples (the last run may be shorter), fed s16le PCM in chunks of any length. */
export class PeakCounter {
  readonly samplesPerPixel: number;
  /** Samples read. */
  samples = 0;
  #min = new Int16Array(4096);
  #max = new Int16Array(4096);
  #length = 0;
  #low = 32767;
  #high = -32768;
  #inRun = 0;
  /** The first byte of a sample split between two chunks. */
  #odd: number | undefined;

  constructor(samplesPerPixel: number) {
    this.samplesPerPixel = samplesPerPixel;
  }

  add(chunk: Buffer): void {
    let at = 0;
    if (this.#odd !== undefined && chunk.length > 0) {
      this.#sample(((this.#odd | (chunk[0]! << 8)) << 16) >> 16);
      this.#odd = undefined;
      at = 1;
    }
    const end = chunk.length - ((chunk.length - at) % 2);
    for (let i = at; i < end; i += 2) this.#sample(((chunk[i]! | (chunk[i + 1]! << 8)) << 16) >> 16);
    if (end < chunk.length) this.#odd = chunk[end];
  }

  #sample(value: number): void {
    if (value < this.#low) this.#low = value;
    if (value > this.#high) this.#high = value;
    this.samples++;
    if (++this.#inRun === this.samplesPerPixel) this.#close();
  }

  #close(): void {
    if (this.#length === this.#min.length) {
      const min = new Int16Array(this.#length * 2);
      const max = new Int16Array(this.#length * 2);
      min.set(this.#min);
      max.set(this.#max);
      this.#min = min;
      this.#max = max;
    }
    this.#min[this.#length] = this.#low;
    this.#max[this.#length] = this.#high;
    this.#length++;
    this.#low = 32767;
    this.#high = -32768;
    this.#inRun = 0;
  }

  /** The pairs, the last shorter run included. */
  finish(): { min: Int16Array; max: Int16Array } {
    if (this.#inRun > 0) this.#close();
    return { min: this.#min.subarray(0, this.#length), max: this.#max.subarray(0, this.#length) };
  }
}

/** The waveform data JSON (github.com/bbc/audiowaveform doc/DataFormat.md), 8 bits: a 16-bit value / 256, truncated, as audiowaveform does. */
export function waveformJson(peaks: { min: Int16Array; max: Int16Array }, rate: { sampleRate: number; samplesPerPixel: number }): string {
  const data: number[] = new Array(peaks.min.length * 2);
  for (let i = 0; i < peaks.min.length; i++) {
    data[2 * i] = Math.trunc(peaks.min[i]! / 256);
    data[2 * i + 1] = Math.trunc(peaks.max[i]! / 256);
  }
  const header = { version: 2, channels: 1, sample_rate: rate.sampleRate, samples_per_pixel: rate.samplesPerPixel, bits: 8, length: peaks.min.length };
  return `${JSON.stringify(header).slice(0, -1)},"data":[${data.join(",")}]}`;
}

const rgb = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));

/**
 * The PNG's pixels: column x spans the peaks of its share of the length, from their max at
 * the top to their min below (full scale at the edges), at least one pixel on the centre row
 * (silence is a flat line); RGBA when the background is transparent, else RGB.
 */
export function drawWaveform(peaks: { min: Int16Array; max: Int16Array }, params: Pick<Params, "width" | "height" | "color" | "backgroundColor">): { pixels: Buffer; channels: 3 | 4 } {
  const { width, height } = params;
  const channels = params.backgroundColor === "transparent" ? 4 : 3;
  const pixels = Buffer.alloc(width * height * channels);
  if (params.backgroundColor !== "transparent") {
    const [r, g, b] = rgb(params.backgroundColor);
    for (let i = 0; i < pixels.length; i += 3) (pixels[i] = r!), (pixels[i + 1] = g!), (pixels[i + 2] = b!);
  }
  const colour = [...rgb(params.color), 255];
  const n = peaks.min.length;
  const row = (value: number) => ((32768 - value) / 65536) * height;
  for (let x = 0; x < width && n > 0; x++) {
    const first = Math.min(n - 1, Math.floor((x * n) / width));
    const last = Math.max(first + 1, Math.floor(((x + 1) * n) / width));
    let low = 32767;
    let high = -32768;
    for (let i = first; i < last; i++) {
      if (peaks.min[i]! < low) low = peaks.min[i]!;
      if (peaks.max[i]! > high) high = peaks.max[i]!;
    }
    const top = Math.min(height - 1, Math.max(0, Math.floor(row(high))));
    const bottom = Math.max(top, Math.min(height - 1, Math.ceil(row(low)) - 1));
    for (let y = top; y <= bottom; y++) {
      const at = (y * width + x) * channels;
      for (let c = 0; c < channels; c++) pixels[at + c] = colour[c]!;
    }
  }
  return { pixels, channels };
}

/** The decode: the probe's main audio stream, mixed to mono, at `sampleRate`, as raw s16le on stdout. */
export function buildArgs(probe: MediaProbe, input: string, sampleRate: number): string[] {
  return [
    ...inputOptions(input), "-i", input,
    "-map", `0:${probe.audio!.index}`, "-vn", "-sn", "-dn",
    "-ac", "1", "-ar", String(sampleRate), "-c:a", "pcm_s16le", "-f", "s16le", "pipe:1",
  ];
}

export async function audioWaveform(params: Params, ctx: ProcessorContext): Promise<StoredResult<"audioWaveform">> {
  // The decode reads all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { audio: true });
  ctx.setProgress(5);

  const rate = peakRate(params.pointsPerSecond);
  const counter = new PeakCounter(rate.samplesPerPixel);
  const expected = probe.duration * rate.sampleRate;
  let reported = 0;
  await runFfmpegPipe(buildArgs(probe, ctx.input.source, rate.sampleRate), { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), task: "decoding the audio" }, (chunk) => {
    counter.add(chunk);
    const percent = 5 + 80 * Math.min(1, counter.samples / expected);
    if (percent >= reported + 1) ctx.setProgress((reported = percent));
  });
  throwIfAborted(ctx.signal);
  const peaks = counter.finish();
  if (peaks.min.length === 0) throw new JobFailure("corrupt_media", "the audio stream holds no samples that decode; the file is damaged or incomplete");
  ctx.setProgress(85);

  const json = waveformJson(peaks, rate);
  const jsonPath = ctx.addOutput(JSON_NAME, "application/json");
  await claimFile(jsonPath);
  await writeFile(jsonPath, json);

  const { pixels, channels } = drawWaveform(peaks, params);
  const pngPath = ctx.addOutput(PNG_NAME, "image/png");
  const info = await step("sharp encode", () => sharp(pixels, { raw: { width: params.width, height: params.height, channels } }).png().toFile(pngPath)).catch((error: unknown) => {
    throw imageFailure(error);
  });
  return {
    url: PNG_NAME,
    size: info.size,
    width: info.width,
    height: info.height,
    format: "png",
    peaks: { url: JSON_NAME, size: Buffer.byteLength(json), length: peaks.min.length, ...rate, bits: 8 },
    duration: round3(counter.samples / rate.sampleRate),
    source: {
      size: ctx.input.size,
      duration: round3(probe.duration),
      audioBitrate: probe.audio!.bitRate === null ? null : Math.round(probe.audio!.bitRate),
      audioCodec: probe.audio!.codec,
    },
  };
}

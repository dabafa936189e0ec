import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { extractAudioParams } from "../../src/contract/jobs/extract-audio.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { parseLoudnormReport } from "../src/tools/loudnorm.ts";
import { runJob } from "./helpers.ts";
import { completed, failed, ffprobe, isMonotonic, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);

const { serve, serveBytes, fixtureBytes } = useVideoMedia();

describe("extractAudio", () => {
  it("extracts a 192 kbps constant-bitrate MP3 by default, as long as the video", async () => {
    const input = await fixtureBytes("small");
    const job = await runJob("extractAudio", { url: serveBytes("/small.mp4", input) });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["audio:mp3"]);
    expect(probe.streams[0]!.bit_rate).toBe("192000");
    // The source's 6 s, give or take the encoders' frame rounding: MP3 frames are 1152
    // samples (26 ms at 44.1 kHz), and the AAC source ends on a whole 1024-sample frame.
    expect(Math.abs(result.duration - 6)).toBeLessThan(2 * (1152 / 44_100));
    expect(Math.abs(Number(probe.format.duration) - result.duration)).toBeLessThan(1152 / 44_100);
    expect(result).toMatchObject({ url: "audio.mp3", size: bytes.length, format: "mp3", bitrate: "192kbps" });
    expect(result.source).toEqual({ size: input.length, duration: 6, audioBitrate: expect.any(Number), audioCodec: "aac" });
    expect(result.source.audioBitrate).toBeGreaterThan(60_000);
    expect(result.source.audioBitrate).toBeLessThan(130_000);
    expect(outputs).toEqual([{ name: "audio.mp3", contentType: "audio/mpeg", size: bytes.length }]);
    expect(isMonotonic(job.progress)).toBe(true);
    expect(parseStoredResult("extractAudio", result)).toEqual({ ok: true, value: result });
    // One probe of the input, one encode; the output is described from its own header.
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
  });

  it.each([
    ["low", "128kbps", 128_000],
    ["high", "320kbps", 320_000],
  ] as const)("%s quality is %s", async (quality, label, bps) => {
    const job = await runJob("extractAudio", { url: await serve("small"), quality });
    const { result } = completed(job.state);
    const probe = await ffprobe(await job.output(result.url));
    expect(Number(probe.streams[0]!.bit_rate)).toBe(bps);
    expect(result.bitrate).toBe(label);
    // Constant bitrate: size follows from bitrate × duration (plus a few headers).
    expect(result.size / ((bps / 8) * result.duration)).toBeCloseTo(1, 1);
  });

  it("reads Opus from WebM, whose container states no bitrate", async () => {
    const job = await runJob("extractAudio", { url: await serve("webm") });
    const { result } = completed(job.state);
    expect(result.source).toMatchObject({ audioCodec: "opus", audioBitrate: null });
    expect(Math.abs(result.duration - 4)).toBeLessThan(0.05);
  });

  it("fails a video without audio with no_audio_stream", async () => {
    const job = await runJob("extractAudio", { url: await serve("silentBlackEnds") });
    expect(failed(job.state).error).toMatchObject({ code: "no_audio_stream", message: expect.stringContaining("no audio") });
  });

  it("fails a truncated MP4 with corrupt_media", async () => {
    const job = await runJob("extractAudio", { url: await serve("truncated") });
    expect(failed(job.state).error.code).toBe("corrupt_media");
  });
});

/** Audio made with ffmpeg's lavfi sources: `source` the lavfi graph, `output` the encoder and muxer options. */
const audioMedia = (() => {
  let dir: Promise<string> | undefined;
  afterAll(async () => {
    if (dir) await rm(await dir, { recursive: true, force: true });
  });
  return async (name: string, source: string, output: string[]): Promise<Buffer> => {
    dir ??= mkdtemp(join(tmpdir(), "media-jobs-audio-"));
    const file = join(await dir, name);
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source, ...output, file]);
    return readFile(file);
  };
})();

/** EBU R128 loudness of a file as ffmpeg's ebur128 filter measures it, independently of loudnorm. */
async function ebur128(bytes: Buffer): Promise<{ integratedLufs: number; truePeakDb: number }> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-r128-"));
  try {
    const file = join(dir, "audio");
    await writeFile(file, bytes);
    const { stderr } = await exec("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-i", file, "-af", "ebur128=peak=true", "-f", "null", "-"]);
    const summary = stderr.slice(stderr.lastIndexOf("Summary:"));
    return { integratedLufs: Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)![1]), truePeakDb: Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(summary)![1]) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("extractAudio formats", () => {
  // A 6 s, 44.1 kHz tone, mono and 5.1, as AAC in MP4 (the source of most uploads).
  const mono = () => audioMedia("mono.mp4", "sine=frequency=440:sample_rate=44100:duration=6", ["-c:a", "aac", "-b:a", "96k"]);
  const surround = () => audioMedia("surround.mp4", "sine=frequency=440:sample_rate=44100:duration=6,pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0", ["-c:a", "aac", "-b:a", "256k"]);

  it.each([
    // format, file, content type, codec, ffprobe's demuxer, sample rate, channels of mono and of 5.1, bitrate
    ["aac", "audio.m4a", "audio/mp4", "aac", "mov,mp4,m4a,3gp,3g2,mj2", 44_100, 1, 2, /^1[0-3]\dkbps$/],
    ["opus", "audio.opus", "audio/ogg", "opus", "ogg", 48_000, 1, 2, /^(8\d|9\d|1[01]\d)kbps$/],
    ["flac", "audio.flac", "audio/flac", "flac", "flac", 44_100, 1, 6, /^\d+kbps$/],
    ["wav", "audio.wav", "audio/wav", "pcm_s16le", "wav", 44_100, 1, 6, /^706kbps$/],
  ] as const)("%s: %s (%s, %s)", async (format, name, contentType, codec, demuxer, rate, monoChannels, surroundChannels, bitrate) => {
    const input = await mono();
    const source = await ffprobe(input);
    const job = await runJob("extractAudio", { url: serveBytes(`/mono-${format}.mp4`, input), format });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.format.format_name).toBe(demuxer);
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual([`audio:${codec}`]);
    expect(Number(probe.streams[0]!.sample_rate)).toBe(rate);
    expect(probe.streams[0]!.channels).toBe(monoChannels);
    expect(Math.abs(Number(probe.format.duration) - Number(source.format.duration))).toBeLessThan(0.05);
    expect(Math.abs(result.duration - Number(probe.format.duration))).toBeLessThan(0.002);
    expect(result).toMatchObject({ url: name, size: bytes.length, format, bitrate: expect.stringMatching(bitrate) });
    expect(result).not.toHaveProperty("loudness");
    expect(outputs).toEqual([{ name, contentType, size: bytes.length }]);
    expect(parseStoredResult("extractAudio", result)).toEqual({ ok: true, value: result });

    const wide = await runJob("extractAudio", { url: serveBytes(`/surround-${format}.mp4`, await surround()), format });
    const wideProbe = await ffprobe(await wide.output(completed(wide.state).result.url));
    expect(wideProbe.streams[0]!.channels).toBe(surroundChannels);
  });

  it("puts the AAC's index first (faststart)", async () => {
    const job = await runJob("extractAudio", { url: serveBytes("/faststart.mp4", await mono()), format: "aac" });
    const bytes = await job.output(completed(job.state).result.url);
    expect(bytes.indexOf("moov")).toBeLessThan(bytes.indexOf("mdat"));
  });

  it("lossless formats ignore quality", async () => {
    const input = await mono();
    const [low, high] = await Promise.all(
      (["low", "high"] as const).map(async (quality) => {
        const job = await runJob("extractAudio", { url: serveBytes(`/wav-${quality}.mp4`, input), format: "wav", quality });
        return job.output(completed(job.state).result.url);
      }),
    );
    expect(low!.equals(high!)).toBe(true);
  });

  it("keeps MP3 the default, with the early encode", async () => {
    const job = await runJob("extractAudio", { url: serveBytes("/default.mp4", await mono()) });
    expect(completed(job.state).result).toMatchObject({ url: "audio.mp3", format: "mp3", bitrate: "192kbps" });
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
  });
});

describe("extractAudio normalize", () => {
  // Pink noise at a known level, quieter than every target, 8 s at 44.1 kHz.
  const quiet = () => audioMedia("quiet.mp4", "anoisesrc=color=pink:amplitude=0.05:sample_rate=44100:duration=8:seed=7", ["-ac", "2", "-c:a", "aac", "-b:a", "192k"]);

  it.each([
    ["wav", true, -16, -1.5],
    ["mp3", { integratedLufs: -23, truePeakDb: -3 }, -23, -3],
    ["opus", { integratedLufs: -14 }, -14, -1.5],
  ] as const)("%s, normalize %j: the output measures the target", async (format, normalize, lufs, truePeak) => {
    const input = await quiet();
    const sourceLoudness = await ebur128(input);
    const job = await runJob("extractAudio", { url: serveBytes(`/quiet-${format}.mp4`, input), format, normalize });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    const measured = await ebur128(bytes);
    expect(Math.abs(measured.integratedLufs - lufs)).toBeLessThan(1);
    expect(measured.truePeakDb).toBeLessThan(truePeak + 0.5);
    expect(result.loudness.before.integratedLufs).toBeCloseTo(sourceLoudness.integratedLufs, 0);
    expect(Math.abs(result.loudness.after.integratedLufs - lufs)).toBeLessThan(1);
    expect(result.loudness.after.truePeakDb).toBeLessThanOrEqual(truePeak + 0.1);
    expect(result.loudness.mode).toBe("linear");
    const probe = await ffprobe(bytes);
    // Back from loudnorm's 192 kHz to the source's 44.1 kHz (Opus: 48 kHz).
    expect(Number(probe.streams[0]!.sample_rate)).toBe(format === "opus" ? 48_000 : 44_100);
    expect(Math.abs(Number(probe.format.duration) - 8)).toBeLessThan(0.05);
    expect(parseStoredResult("extractAudio", result)).toEqual({ ok: true, value: result });
    // The probe, the measuring pass, the encode (and for a format other than MP3 a probe of the output).
    expect(job.steps.map((s) => s.step)).toEqual(format === "mp3" ? ["ffprobe", "ffmpeg", "ffmpeg"] : ["ffprobe", "ffmpeg", "ffmpeg", "ffprobe"]);
  });

  it("leaves silent audio as it is, its loudness null", async () => {
    const input = await audioMedia("silent.mp4", "anullsrc=sample_rate=44100:channel_layout=stereo:duration=4", ["-c:a", "aac"]);
    const job = await runJob("extractAudio", { url: serveBytes("/silent.mp4", input), format: "flac", normalize: true });
    const { result } = completed(job.state);
    expect(result.loudness).toEqual({ before: null, after: null, mode: "none" });
    const probe = await ffprobe(await job.output(result.url));
    expect(probe.streams[0]).toMatchObject({ codec_name: "flac", sample_rate: "44100", channels: 2 });
    expect(parseStoredResult("extractAudio", result)).toEqual({ ok: true, value: result });
  });
});

describe("extractAudio params", () => {
  it("defaults to MP3, medium, not normalized", () => {
    expect(extractAudioParams.parse({ url: "https://example.com/a.mp4" })).toEqual({ url: "https://example.com/a.mp4", format: "mp3", quality: "medium", normalize: false });
    expect(extractAudioParams.parse({ url: "https://example.com/a.mp4", normalize: { truePeakDb: -2 } }).normalize).toEqual({ integratedLufs: -16, truePeakDb: -2, lra: 11 });
  });

  it.each([
    [{ format: "ogg" }, ["format"]],
    [{ normalize: { integratedLufs: -30 } }, ["normalize", "integratedLufs"]],
    [{ normalize: { integratedLufs: -4 } }, ["normalize", "integratedLufs"]],
    [{ normalize: { truePeakDb: 1 } }, ["normalize", "truePeakDb"]],
    [{ normalize: { lra: 30 } }, ["normalize", "lra"]],
    [{ normalize: { target: -16 } }, ["normalize"]],
  ])("refuses %j at %j", (params, path) => {
    const parsed = extractAudioParams.safeParse({ url: "https://example.com/a.mp4", ...params });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path)).toContainEqual(path);
  });

  it("reads loudnorm's report among ffmpeg's other lines, -inf as silence", () => {
    const stderr = `[Parsed_loudnorm_0 @ 0x1] \n{\n\t"input_i" : "-27.85",\n\t"input_tp" : "-20.99",\n\t"input_lra" : "0.00",\n\t"input_thresh" : "-37.85",\n\t"output_i" : "-15.99",\n\t"output_tp" : "-9.13",\n\t"output_lra" : "0.10",\n\t"output_thresh" : "-25.99",\n\t"normalization_type" : "linear",\n\t"target_offset" : "-0.01"\n}\nsize=N/A {not json}\n`;
    expect(parseLoudnormReport(stderr)).toEqual({
      input: { integratedLufs: -27.85, truePeakDb: -20.99, lra: 0 },
      output: { integratedLufs: -15.99, truePeakDb: -9.13, lra: 0.1 },
      inputThreshold: -37.85,
      targetOffset: -0.01,
      mode: "linear",
    });
    expect(parseLoudnormReport(stderr.replace("-27.85", "-inf"))!.input).toBeNull();
    expect(parseLoudnormReport("no report")).toBeNull();
  });
});

import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { parseCreateJob } from "../../src/contract/create-job.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { PeakCounter, peakRate } from "../src/processors/audio-waveform.ts";
import { runJob, withTempDir } from "./helpers.ts";
import { completed, failed, isMonotonic, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);
const { serve, serveBytes } = useVideoMedia();

/** 4 s of a 440 Hz sine in AAC (M4A): at 5 % of full scale for 2 s, then at 90 %. */
const QUIET_THEN_LOUD = "aevalsrc='if(lt(t,2),0.05,0.9)*sin(2*PI*440*t)':s=44100:d=4";

let clip: Promise<Buffer> | undefined;
const quietThenLoud = () =>
  (clip ??= withTempDir(async (dir) => {
    const file = `${dir}/tone.m4a`;
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", QUIET_THEN_LOUD, "-c:a", "aac", "-b:a", "128k", file]);
    return readFile(file);
  }));

/** An output PNG's pixels as RGBA, and a reader of one pixel. */
async function pixels(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { info, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)] };
}

interface WaveformJson {
  version: number;
  channels: number;
  sample_rate: number;
  samples_per_pixel: number;
  bits: number;
  length: number;
  data: number[];
}

describe("audioWaveform", () => {
  it("writes peaks in audiowaveform's JSON and draws them into a transparent PNG of the asked size", async () => {
    const input = await quietThenLoud();
    const job = await runJob("audioWaveform", { url: serveBytes("/tone.m4a", input), width: 400, height: 100 });
    const { result, outputs } = completed(job.state);

    const json = JSON.parse((await job.output(result.peaks.url)).toString()) as WaveformJson;
    expect(json).toMatchObject({ version: 2, channels: 1, sample_rate: 16_000, samples_per_pixel: 160, bits: 8 });
    expect(Object.keys(json)).toEqual(["version", "channels", "sample_rate", "samples_per_pixel", "bits", "length", "data"]);
    expect(json.data).toHaveLength(2 * json.length);
    // 100 a second over 4 s, give or take AAC's frame rounding.
    expect(Math.abs(json.length - 400)).toBeLessThanOrEqual(5);
    const pair = (i: number) => [json.data[2 * i]!, json.data[2 * i + 1]!];
    // Quiet: within 5 % of 128 (and a step of rounding); loud: near 90 %.
    for (let i = 20; i < 180; i++) expect(Math.max(...pair(i).map(Math.abs)), `peak ${i}`).toBeLessThanOrEqual(8);
    for (let i = 220; i < 380; i++) {
      const [min, max] = pair(i);
      expect(max, `peak ${i}`).toBeGreaterThan(100);
      expect(min, `peak ${i}`).toBeLessThan(-100);
    }

    expect(result).toMatchObject({
      url: "waveform.png",
      width: 400,
      height: 100,
      format: "png",
      peaks: { url: "waveform.json", length: json.length, sampleRate: 16_000, samplesPerPixel: 160, bits: 8 },
      source: { size: input.length, audioCodec: "aac" },
    });
    expect(Math.abs(result.duration - 4)).toBeLessThan(0.05);
    const png = await job.output(result.url);
    expect(outputs).toEqual(
      expect.arrayContaining([
        { name: "waveform.png", contentType: "image/png", size: png.length },
        { name: "waveform.json", contentType: "application/json", size: result.peaks.size },
      ]),
    );
    expect(result.size).toBe(png.length);

    const { info, at } = await pixels(png);
    expect([info.width, info.height]).toEqual([400, 100]);
    expect((await sharp(png).metadata()).hasAlpha).toBe(true);
    // Quiet half (x 100 is 1 s): transparent away from the centre line, the colour on it.
    expect(at(100, 10)[3]).toBe(0);
    expect(at(100, 30)[3]).toBe(0);
    expect(at(100, 50)).toEqual([0x3b, 0x82, 0xf6, 255]);
    // Loud half (x 300 is 3 s): the waveform reaches 90 % of the way to the edges.
    expect(at(300, 10)).toEqual([0x3b, 0x82, 0xf6, 255]);
    expect(at(300, 90)).toEqual([0x3b, 0x82, 0xf6, 255]);
    expect(at(300, 2)[3]).toBe(0);
    expect(isMonotonic(job.progress)).toBe(true);
    expect(parseStoredResult("audioWaveform", result)).toEqual({ ok: true, value: result });
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "sharp encode"]);
  });

  it("paints the asked colours on an opaque background, and the resolution asked for", async () => {
    const job = await runJob("audioWaveform", { url: serveBytes("/tone2.m4a", await quietThenLoud()), width: 200, height: 60, color: "#ff8800", backgroundColor: "#102030", pointsPerSecond: 20 });
    const { result } = completed(job.state);
    expect(result.peaks).toMatchObject({ sampleRate: 16_000, samplesPerPixel: 800 });
    expect(Math.abs(result.peaks.length - 80)).toBeLessThanOrEqual(2);
    const png = await job.output(result.url);
    expect((await sharp(png).metadata()).hasAlpha).toBe(false);
    const { at } = await pixels(png);
    expect(at(50, 5)).toEqual([0x10, 0x20, 0x30, 255]);
    expect(at(150, 10)).toEqual([0xff, 0x88, 0x00, 255]);
  });

  it("fails a video without audio with no_audio_stream", async () => {
    const job = await runJob("audioWaveform", { url: await serve("silentBlackEnds") });
    expect(failed(job.state).error.code).toBe("no_audio_stream");
  });
});

describe("audioWaveform's params", () => {
  it.each([
    [{ width: 9000 }, "params.width"],
    [{ height: 0 }, "params.height"],
    [{ color: "blue" }, "params.color"],
    [{ backgroundColor: "none" }, "params.backgroundColor"],
    [{ pointsPerSecond: 1000 }, "params.pointsPerSecond"],
    [{ pointsPerSecond: 2.5 }, "params.pointsPerSecond"],
  ])("refuses %j naming %s (a 400 invalid_input)", (params, path) => {
    const parsed = parseCreateJob({ type: "audio-waveform", params: { url: "https://example.com/a.mp3", ...params } });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues.map((issue) => issue.path)).toEqual([path]);
  });

  it("fills in the defaults", () => {
    const parsed = parseCreateJob({ type: "audio-waveform", params: { url: "https://example.com/a.mp3" } });
    expect(parsed.ok && parsed.value.params).toEqual({ url: "https://example.com/a.mp3", width: 1800, height: 280, color: "#3b82f6", backgroundColor: "transparent", pointsPerSecond: 100 });
  });
});

describe("peaks", () => {
  it("decodes at a whole number of samples a peak, at least 16 kHz", () => {
    expect(peakRate(100)).toEqual({ sampleRate: 16_000, samplesPerPixel: 160 });
    expect(peakRate(30)).toEqual({ sampleRate: 16_020, samplesPerPixel: 534 });
    expect(peakRate(400)).toEqual({ sampleRate: 16_000, samplesPerPixel: 40 });
  });

  it("counts min and max per run of samples across chunks split anywhere, the last run shorter", () => {
    const samples = [1, -2, 3, 100, -300, 7, 32767, -32768];
    const bytes = Buffer.alloc(samples.length * 2);
    samples.forEach((s, i) => bytes.writeInt16LE(s, i * 2));
    const counter = new PeakCounter(3);
    for (const cut of [[0, 3], [3, 4], [4, 11], [11, 16]]) counter.add(bytes.subarray(cut[0], cut[1]));
    const peaks = counter.finish();
    expect([...peaks.min]).toEqual([-2, -300, -32768]);
    expect([...peaks.max]).toEqual([3, 100, 32767]);
    expect(counter.samples).toBe(8);
  });
});

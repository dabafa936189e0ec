import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { videoStoryboardParams } from "../../src/contract/jobs/video-storyboard.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { planStoryboard, storyboardVtt, vttTime } from "../src/processors/video-storyboard.ts";
import type { MediaProbe } from "../src/tools/ffprobe.ts";
import { runJob, withTempDir } from "./helpers.ts";
import { completed, failed, isMonotonic, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);
const { serveBytes } = useVideoMedia();

const FPS = 25;
const SECONDS = 8;
/**
 * 320×180, 8 s, 25 fps, H.264: every frame one flat colour of its own (red, green and blue
 * step by 9, 5 and 3 levels a frame), so a tile's mean colour names the frame it shows.
 */
const COLOURS = `nullsrc=s=320x180:r=${FPS}:d=${SECONDS},geq=r='mod(N*9,256)':g='mod(N*5+60,256)':b='mod(255-N*3,256)'`;

async function ffmpegOut(args: string[]): Promise<Buffer> {
  const { stdout } = await exec("ffmpeg", ["-nostdin", "-v", "error", ...args], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

let clip: Promise<{ bytes: Buffer; means: number[][] }> | undefined;

/** The clip, and each decoded frame's mean colour (by frame index), from one ffmpeg run over it. */
function colourClip() {
  clip ??= withTempDir(async (dir) => {
    const file = `${dir}/colours.mp4`;
    await ffmpegOut(["-f", "lavfi", "-i", COLOURS, "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", file]);
    const raw = await ffmpegOut(["-i", file, "-vf", "scale=4:4:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]);
    const means: number[][] = [];
    for (let at = 0; at + 48 <= raw.length; at += 48) {
      const px = raw.subarray(at, at + 48);
      means.push([0, 1, 2].map((c) => px.filter((_, i) => i % 3 === c).reduce((a, b) => a + b, 0) / 16));
    }
    return { bytes: await readFile(file), means };
  });
  return clip;
}

interface Cue {
  start: number;
  end: number;
  file: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A WebVTT storyboard's cues; throws on anything that is not one. */
function parseVtt(text: string): Cue[] {
  const [header, ...blocks] = text.trimEnd().split(/\n\n+/);
  expect(header).toBe("WEBVTT");
  const seconds = (t: string) => {
    const [h, m, s] = t.split(":");
    return Number(h) * 3600 + Number(m) * 60 + Number(s);
  };
  return blocks.map((block) => {
    const m = /^(\d\d:\d\d:\d\d\.\d\d\d) --> (\d\d:\d\d:\d\d\.\d\d\d)\n([^#\s]+)#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(block);
    if (!m) throw new Error(`not a storyboard cue: ${JSON.stringify(block)}`);
    return { start: seconds(m[1]!), end: seconds(m[2]!), file: m[3]!, x: Number(m[4]), y: Number(m[5]), w: Number(m[6]), h: Number(m[7]) };
  });
}

/** The frame index whose mean colour is nearest a tile's (its inside, away from edges the encoder blurs). */
async function frameShown(sprite: Buffer, cue: Cue, means: number[][]): Promise<number> {
  const inset = 4;
  const crop = await sharp(sprite).extract({ left: cue.x + inset, top: cue.y + inset, width: cue.w - 2 * inset, height: cue.h - 2 * inset }).png().toBuffer();
  const { channels } = await sharp(crop).stats();
  const tile = channels.slice(0, 3).map((c) => c.mean);
  const distance = (m: number[]) => m.reduce((sum, v, i) => sum + (v - tile[i]!) ** 2, 0);
  return means.reduce((best, m, i) => (distance(m) < distance(means[best]!) ? i : best), 0);
}

/** Everything a storyboard promises, checked against its probed sprite and the clip's frames. */
async function checkStoryboard(job: Awaited<ReturnType<typeof runJob>>, expected: { count: number; columns: number; tileWidth: number; format: "jpeg" | "webp" }) {
  const { result, outputs } = completed(job.state);
  const { means } = await colourClip();
  const vtt = (await job.output(result.url)).toString("utf8");
  const sprite = await job.output(result.sprite.url);
  const meta = await sharp(sprite).metadata();
  const cues = parseVtt(vtt);

  expect(result.url).toBe("storyboard/storyboard.vtt");
  expect(result.size).toBe(Buffer.byteLength(vtt));
  expect(outputs.map((o) => [o.name, o.contentType]).sort()).toEqual(
    [["storyboard/storyboard.vtt", "text/vtt"], [result.sprite.url, expected.format === "jpeg" ? "image/jpeg" : "image/webp"]].sort(),
  );
  expect([meta.format, meta.width, meta.height, sprite.length]).toEqual([expected.format, result.sprite.width, result.sprite.height, result.sprite.size]);
  const rows = Math.ceil(expected.count / expected.columns);
  const tileHeight = Math.round((expected.tileWidth * 180) / 320);
  expect(result.tile).toMatchObject({ width: expected.tileWidth, height: tileHeight, columns: expected.columns, rows, count: expected.count });
  expect([result.sprite.width, result.sprite.height]).toEqual([expected.tileWidth * expected.columns, tileHeight * rows]);

  // Cues: one per tile, from 0 to the end without gap or overlap, each in the sprite, laid out by rows of `columns`.
  expect(cues).toHaveLength(expected.count);
  expect(cues[0]!.start).toBe(0);
  expect(cues.at(-1)!.end).toBe(SECONDS);
  expect(result.duration).toBe(SECONDS);
  for (const [i, cue] of cues.entries()) {
    expect(cue.file).toBe(result.sprite.url.slice("storyboard/".length));
    expect(cue.end).toBeGreaterThan(cue.start);
    if (i > 0) expect(cue.start).toBe(cues[i - 1]!.end);
    expect(Math.abs(cue.start - i * result.tile.interval)).toBeLessThanOrEqual(0.001 * (i + 1));
    expect({ x: cue.x, y: cue.y, w: cue.w, h: cue.h }).toEqual({ x: (i % expected.columns) * expected.tileWidth, y: Math.floor(i / expected.columns) * tileHeight, w: expected.tileWidth, h: tileHeight });
    expect(cue.x + cue.w).toBeLessThanOrEqual(meta.width!);
    expect(cue.y + cue.h).toBeLessThanOrEqual(meta.height!);
    // The tile shows the frame on screen at the cue's start.
    expect(await frameShown(sprite, cue, means), `tile ${i} at ${cue.start} s`).toBe(Math.floor(cue.start * FPS + 1e-6));
  }
  expect(parseStoredResult("videoStoryboard", result)).toEqual({ ok: true, value: result });
  return { result, cues };
}

describe("videoStoryboard", () => {
  it("by default tiles a frame every 2 s into one JPEG row, each tile the frame at its cue's start", async () => {
    const { bytes } = await colourClip();
    const job = await runJob("videoStoryboard", { url: serveBytes("/colours.mp4", bytes) });
    const { result } = await checkStoryboard(job, { count: 4, columns: 4, tileWidth: 160, format: "jpeg" });
    expect(result.tile.interval).toBe(2);
    expect(result.source).toEqual({ size: bytes.length, duration: SECONDS, width: 320, height: 180, format: "mp4", hasAudio: false });
    expect(isMonotonic(job.progress)).toBe(true);
    expect(job.progress.at(-1)).toBe(100);
  });

  it("spreads `count` tiles over the video in rows of `columns`, as WebP", async () => {
    const { bytes } = await colourClip();
    const job = await runJob("videoStoryboard", { url: serveBytes("/colours-7.mp4", bytes), count: 7, columns: 3, width: 96, format: "webp", quality: 90 });
    const { result, cues } = await checkStoryboard(job, { count: 7, columns: 3, tileWidth: 96, format: "webp" });
    expect(result.tile.interval).toBe(1.143);
    // Off the frame grid: 8/7 s apart, the tiles are frames 0, 28, 57, 85, 114, 142 and 171.
    expect(cues.map((c) => Math.floor(c.start * FPS + 1e-6))).toEqual([0, 28, 57, 85, 114, 142, 171]);
  });

  it("gives one tile per interval up to `count`, beyond which `count` tiles spread evenly", async () => {
    const { bytes } = await colourClip();
    const url = serveBytes("/colours-interval.mp4", bytes);
    const every = await runJob("videoStoryboard", { url, interval: 3, width: 64 });
    // 8 s every 3 s: 0, 3 and 6 s, the last cue ending at 8 s.
    const { cues } = await checkStoryboard(every, { count: 3, columns: 3, tileWidth: 64, format: "jpeg" });
    expect(cues.map((c) => [c.start, c.end])).toEqual([[0, 3], [3, 6], [6, 8]]);
    const capped = await runJob("videoStoryboard", { url, interval: 0.5, count: 5, columns: 5, width: 64 });
    const { result } = await checkStoryboard(capped, { count: 5, columns: 5, tileWidth: 64, format: "jpeg" });
    expect(result.tile.interval).toBe(1.6);
  });

  it("shows the last frame in the tiles past the picture's end when the audio runs longer", async () => {
    const { means } = await colourClip();
    const bytes = await withTempDir(async (dir) => {
      const file = `${dir}/long-audio.mp4`;
      await ffmpegOut(["-f", "lavfi", "-i", COLOURS, "-f", "lavfi", "-i", `sine=d=${SECONDS + 2}`, "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", file]);
      return readFile(file);
    });
    const job = await runJob("videoStoryboard", { url: serveBytes("/long-audio.mp4", bytes), interval: 2, width: 64 });
    const { result } = completed(job.state);
    const cues = parseVtt((await job.output(result.url)).toString("utf8"));
    const sprite = await job.output(result.sprite.url);
    // 10 s of audio: cues at 0, 2, 4, 6 and 8 s; the picture's last frame (199, at 7.96 s) stands for 8 s.
    expect(result.duration).toBeGreaterThanOrEqual(SECONDS + 2);
    expect(cues.map((c) => c.start)).toEqual([0, 2, 4, 6, 8]);
    const shown = [];
    for (const cue of cues) shown.push(await frameShown(sprite, cue, means));
    expect(shown).toEqual([0, 50, 100, 150, FPS * SECONDS - 1]);
  });

  it("refuses a sprite over 16383 pixels a side before decoding, saying what to ask for", async () => {
    const { bytes } = await colourClip();
    const job = await runJob("videoStoryboard", { url: serveBytes("/colours-tall.mp4", bytes), count: 100, width: 1280, columns: 1 });
    const { error } = failed(job.state);
    expect(error.code).toBe("invalid_input");
    expect(error.message).toMatch(/100 tiles of 1280×720 in 1 columns make a 1280×72000 sprite, over the limit of 16383 pixels a side; ask for fewer tiles/);
    expect(job.steps.map((s) => s.step)).not.toContain("ffmpeg");
  });

  it("fails no_video_stream on audio alone", async () => {
    const mp3 = await ffmpegOut(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "libmp3lame", "-f", "mp3", "-"]);
    const job = await runJob("videoStoryboard", { url: serveBytes("/tone.mp3", mp3) });
    expect(failed(job.state).error.code).toBe("no_video_stream");
  });
});

describe("planStoryboard", () => {
  const probe = (duration: number, frameRate: number | null = 25): MediaProbe => ({
    format: "mp4", duration, size: 1, bitRate: null, audio: null,
    video: { index: 0, codec: "h264", width: 1920, height: 1080, frameRate },
  });
  const plan = (params: Record<string, unknown>, p: MediaProbe) => planStoryboard(videoStoryboardParams.parse({ url: "https://example.com/a.mp4", ...params }), p, { MAX_INPUT_PIXELS: 16383 ** 2 });

  it("never makes more tiles than the video has frames", () => {
    expect(plan({ count: 1000 }, probe(2))).toMatchObject({ count: 50, interval: 0.04 });
    expect(plan({ interval: 0.1 }, probe(1, 5))).toMatchObject({ count: 5, interval: 0.2 });
  });

  it("caps the default interval at 100 tiles, spread over a long video", () => {
    expect(plan({}, probe(3600))).toMatchObject({ count: 100, interval: 36, columns: 10, rows: 10, tileWidth: 160, tileHeight: 90 });
    expect(plan({}, probe(9))).toMatchObject({ count: 5, interval: 2 });
  });

  it("gives a video shorter than the interval one tile, its cue the whole video", () => {
    const one = plan({ interval: 30 }, probe(9));
    expect(one).toMatchObject({ count: 1, interval: 30, columns: 1, rows: 1 });
    expect(storyboardVtt(one, "sprite.jpg")).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:09.000\nsprite.jpg#xywh=0,0,160,90\n");
  });

  it("writes WebVTT times", () => {
    expect([vttTime(0), vttTime(1.1429), vttTime(3725.5)]).toEqual(["00:00:00.000", "00:00:01.143", "01:02:05.500"]);
  });
});

// A plain JPEG thumbnail is written by ffmpeg itself (tools/frames.ts jpegByFfmpeg): its pixels
// are compared with what sharp makes of the same frame, its tables with jpegTables, and the
// jobs sharp still has work in are shown to go through it.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFfmpeg } from "../src/tools/ffmpeg.ts";
import { probeMedia } from "../src/tools/ffprobe.ts";
import { frameBox, frameTimeAt, grabArgs, jpegTables } from "../src/tools/frames.ts";
import { runJob } from "./helpers.ts";
import { completed, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);
const { serve, serveBytes } = useVideoMedia();
const limits = { signal: new AbortController().signal, timeoutMs: 60_000, task: "test" };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "media-jobs-jpeg-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The RGB pixels the sharp path is given for the frame at `seconds` (grabArgs writing raw pixels), at the video's size. */
async function framePixels(file: string, seconds: number): Promise<{ rgb: Buffer; width: number; height: number }> {
  const probe = await probeMedia(file, limits.signal);
  const box = frameBox(probe.video!);
  const output = join(dir, `frame-${Math.random().toString(36).slice(2)}.raw`);
  await runFfmpeg(grabArgs(file, probe, frameTimeAt(seconds, probe), box, output), limits);
  return { rgb: await readFile(output), width: box.width, height: box.height };
}

const decoded = (jpeg: Buffer) => sharp(jpeg).raw().toBuffer();

function psnr(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / a.length));
}

function meanAbsolute(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** The mean of `a − b` on each of R, G and B: a colour shift, where noise averages out. */
function meanShift(a: Buffer, b: Buffer): number[] {
  const sums = [0, 0, 0];
  for (let i = 0; i < a.length; i++) sums[i % 3]! += a[i]! - b[i]!;
  return sums.map((sum) => sum / (a.length / 3));
}

/** JPEG's zigzag order: the row-order index of each coefficient as a DQT lists them. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/** The quantisation tables a baseline JPEG holds, by table number, in row order. */
function quantTables(jpeg: Buffer): Map<number, number[]> {
  const tables = new Map<number, number[]>();
  for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff; ) {
    const marker = jpeg[at + 1]!;
    const length = jpeg.readUInt16BE(at + 2);
    if (marker === 0xdb) {
      for (let t = at + 4; t < at + 2 + length; t += 65) {
        const table = Array<number>(64);
        ZIGZAG.forEach((natural, i) => (table[natural] = jpeg[t + 1 + i]!));
        tables.set(jpeg[t]! & 0x0f, table);
      }
    }
    if (marker === 0xda) break;
    at += 2 + length;
  }
  return tables;
}

describe("a plain JPEG thumbnail, written by ffmpeg", () => {
  it.each([50, 85, 95])("at quality %i looks as sharp's JPEG of the same pixels, at a size close to it, with jpegTables' tables", async (quality) => {
    const file = join(dir, "hd.mp4");
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
    const job = await runJob("videoThumbnail", { url: serveBytes(`/hd-${quality}.mp4`, await readFile(file)), timestamp: 2, quality });
    const { result } = completed(job.state);
    const jpeg = await job.output(result.url);
    // ffmpeg wrote it: sharp did not run.
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.chromaSubsampling, meta.isProgressive]).toEqual(["jpeg", 1280, 720, "4:2:0", false]);
    expect(result).toMatchObject({ size: jpeg.length, width: 1280, height: 720 });
    // libjpeg's tables for the quality, scaled (jpegTables); the DC entry is mjpeg's fixed 8.
    const { luma, chroma } = jpegTables(quality);
    expect(quantTables(jpeg)).toEqual(new Map([[0, [8, ...luma.slice(1)]], [1, [8, ...chroma.slice(1)]]]));

    const frame = await framePixels(file, 2);
    const bySharp = await sharp(frame.rgb, { raw: { width: frame.width, height: frame.height, channels: 3 } }).jpeg({ quality, optimiseCoding: true }).toBuffer();
    const [ours, theirs] = [await decoded(jpeg), await decoded(bySharp)];
    // As close to the frame as sharp's, and to sharp's as two encodes of it can be; no colour moved.
    expect(psnr(ours, frame.rgb)).toBeGreaterThan(psnr(theirs, frame.rgb) - 1);
    expect(psnr(ours, theirs)).toBeGreaterThan(33);
    for (const shift of meanShift(ours, theirs)) expect(Math.abs(shift)).toBeLessThan(0.5);
    expect(jpeg.length / bySharp.length).toBeGreaterThan(0.8);
    expect(jpeg.length / bySharp.length).toBeLessThan(1.25);
  });

  it("of a BT.709 limited-range video has the colours sharp's would (JFIF's BT.601 full range, from the same RGB)", async () => {
    const file = join(dir, "bt709.mp4");
    // Colours as a phone writes them: BT.709's matrix, limited range, and said so in the stream.
    await exec("ffmpeg", [
      "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=2", "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
      "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", "-c:v", "libx264", "-preset", "ultrafast", file,
    ]);
    const job = await runJob("videoThumbnail", { url: serveBytes("/bt709.mp4", await readFile(file)), timestamp: 1, quality: 95 });
    const jpeg = await job.output(completed(job.state).result.url);
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
    const frame = await framePixels(file, 1);
    const bySharp = await sharp(frame.rgb, { raw: { width: 640, height: 360, channels: 3 } }).jpeg({ quality: 95, optimiseCoding: true }).toBuffer();
    const [ours, theirs] = [await decoded(jpeg), await decoded(bySharp)];
    // BT.709's planes only widened to full range (yuv420p straight to yuvj420p), as a JPEG
    // decoder reads them by BT.601, are 8 levels off on average on these saturated bars.
    expect(meanAbsolute(ours, frame.rgb)).toBeLessThan(3);
    expect(meanAbsolute(ours, frame.rgb)).toBeLessThan(meanAbsolute(theirs, frame.rgb) + 0.5);
    expect(psnr(ours, theirs)).toBeGreaterThan(33);
  });

  it("of a video with alpha goes through sharp, as before, its image tool started when needed", async () => {
    const file = join(dir, "alpha.mov");
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2,format=rgba", "-c:v", "png", file]);
    const job = await runJob("videoThumbnail", { url: serveBytes("/alpha.mov", await readFile(file)), timestamp: 1 });
    const bytes = await job.output(completed(job.state).result.url);
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    // The early grab, started to write a JPEG (its encoder fixed), is discarded once the probe
    // has seen the alpha; grabArgs writes the pixels after it.
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "ffmpeg", "sharp encode"]);
  });

  it.each([
    ["a crop at a side", { width: 180, height: 180, position: "top-left" }],
    ["padding", { width: 180, height: 180, fit: "contain" }],
    ["a watermark", { watermark: { text: "©" } }],
  ] as const)("with %s goes through sharp, which has work to do", async (_what, shape) => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 1, format: "jpg", ...shape });
    const bytes = await job.output(completed(job.state).result.url);
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    expect(job.steps.map((s) => s.step)).toContain("sharp encode");
  });
});

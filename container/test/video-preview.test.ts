import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp, { type Sharp } from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { previewSpan, previewSpans } from "../src/processors/video-preview.ts";
import { runJob } from "./helpers.ts";
import { completed, failed, ffprobe, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);
const { serve, serveBytes } = useVideoMedia();

/** 6 s, 320×240, 25 fps, one flat colour a second, in this order; `moving` adds a 48×48 testsrc2 at (8, 8), so that no two frames are the same. */
const COLOURS = { red: [255, 0, 0], lime: [0, 255, 0], blue: [0, 0, 255], yellow: [255, 255, 0], magenta: [255, 0, 255], cyan: [0, 255, 255] } as const;
type Colour = keyof typeof COLOURS;
const SECONDS = Object.keys(COLOURS) as Colour[];

let dir: string;
let colours: Buffer;
let coloursUrl: string;
let flatUrl: string;

async function colourClip(name: string, moving: boolean): Promise<Buffer> {
  const sources = SECONDS.map((c, i) => `color=c=${c}:s=320x240:r=25:d=1[s${i}]`).join(";");
  const joined = `${sources};${SECONDS.map((_, i) => `[s${i}]`).join("")}concat=n=${SECONDS.length}`;
  const graph = moving ? `${joined}[bg];testsrc2=s=48x48:r=25:d=6,noise=alls=60:allf=t+u[m];[bg][m]overlay=8:8` : joined;
  const file = join(dir, `${name}.mp4`);
  // A keyframe every 2 s, so that a start between keyframes is decoded up to, not seeked to.
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", graph, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "50", file]);
  return readFile(file);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "media-jobs-preview-"));
  colours = await colourClip("moving", true);
  coloursUrl = serveBytes("/colours.mp4", colours);
  flatUrl = serveBytes("/flat.mp4", await colourClip("flat", false));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** The clip's colour nearest to a picture's mean. */
async function colourOf(image: Sharp): Promise<Colour> {
  const { channels } = await image.removeAlpha().stats();
  const mean = channels.slice(0, 3).map((c) => c.mean);
  const distance = (c: Colour) => COLOURS[c].reduce((sum: number, v: number, i: number) => sum + (v - mean[i]!) ** 2, 0);
  return SECONDS.reduce((best, c) => (distance(c) < distance(best) ? c : best));
}

/** The colour of frame `page` of an animated WebP or GIF. */
const pageColour = (bytes: Buffer, page: number) => colourOf(sharp(bytes, { page }));

/** The colour of an MP4's first or last frame, decoded by ffmpeg. */
async function mp4FrameColour(bytes: Buffer, which: "first" | "last"): Promise<Colour> {
  const input = join(dir, `frame-of-${Date.now()}.mp4`);
  await writeFile(input, bytes);
  const seek = which === "last" ? ["-sseof", "-0.2"] : [];
  const { stdout } = await exec("ffmpeg", ["-nostdin", "-v", "error", ...seek, "-i", input, "-update", "1", "-f", "image2pipe", "-c:v", "png", "-"], { encoding: "buffer", maxBuffer: 10 * 1024 ** 2 });
  // With -update each frame replaces the last; image2pipe writes them all, so keep the last PNG.
  const pngs = stdout.toString("latin1").split("\x89PNG").filter(Boolean);
  const png = which === "first" ? pngs[0]! : pngs[pngs.length - 1]!;
  return colourOf(sharp(Buffer.from("\x89PNG" + png, "latin1")));
}

describe("videoPreview", () => {
  it("makes an animated WebP of the span asked for: its frames, delays and loop probed", async () => {
    // 2.5 s is inside the frame that starts at 2.48 s: the preview starts with it.
    const job = await runJob("videoPreview", { url: coloursUrl, start: 2.5, duration: 2, fps: 10 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const meta = await sharp(bytes, { animated: true }).metadata();
    expect([meta.format, meta.width, meta.pageHeight, meta.pages, meta.loop]).toEqual(["webp", 320, 240, 20, 0]);
    expect(meta.delay).toEqual(Array(20).fill(100));
    expect(result).toEqual({
      url: "preview.webp",
      size: bytes.length,
      width: 320,
      height: 240,
      format: "webp",
      duration: 2,
      frameRate: 10,
      frames: 20,
      start: 2.48,
      source: { size: colours.length, duration: 6, width: 320, height: 240, format: "mp4", hasAudio: false },
    });
    expect(outputs).toEqual([{ name: "preview.webp", contentType: "image/webp", size: bytes.length }]);
    expect(parseStoredResult("videoPreview", result)).toEqual({ ok: true, value: result });
    // 2.48 s is in the third second (blue), 4.38 s (the last frame's) in the fifth (magenta).
    expect(await pageColour(bytes, 0)).toBe("blue");
    expect(await pageColour(bytes, 19)).toBe("magenta");
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "sharp metadata"]);
  });

  it("makes a GIF at the width and frame rate asked for, played once when loop is false", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, format: "gif", start: 1, duration: 3, width: 160, fps: 5, loop: false });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const meta = await sharp(bytes, { animated: true }).metadata();
    expect([meta.format, meta.width, meta.pageHeight, meta.pages]).toEqual(["gif", 160, 120, 15]);
    expect(meta.delay).toEqual(Array(15).fill(200));
    // No NETSCAPE loop block: sharp reads a GIF without one as played once.
    expect(meta.loop).toBe(1);
    expect(result).toMatchObject({ url: "preview.gif", width: 160, height: 120, format: "gif", duration: 3, frameRate: 5, frames: 15, start: 1 });
    expect(outputs[0]!.contentType).toBe("image/gif");
    expect(await pageColour(bytes, 0)).toBe("lime");
    expect(await pageColour(bytes, 14)).toBe("yellow");
  });

  it("a GIF keeps the colours of a still scene after a cut (its palette counts every frame)", async () => {
    const job = await runJob("videoPreview", { url: flatUrl, format: "gif", start: 2, duration: 2, width: 64, fps: 5 });
    const bytes = await job.output(completed(job.state).result.url);
    expect(await pageColour(bytes, 0)).toBe("blue");
    expect(await pageColour(bytes, 9)).toBe("yellow");
  });

  it("a WebP stores a still stretch once, its delay the stretch's; a still preview is one picture", async () => {
    const job = await runJob("videoPreview", { url: flatUrl, start: 1, duration: 2, fps: 10, width: 64 });
    const { result } = completed(job.state);
    const meta = await sharp(await job.output(result.url), { animated: true }).metadata();
    expect([meta.pages, meta.delay]).toEqual([2, [1000, 1000]]);
    expect(result).toMatchObject({ frames: 2, duration: 2, frameRate: 10 });
    const still = await runJob("videoPreview", { url: flatUrl, start: 4.1, duration: 0.5, width: 64 });
    expect(completed(still.state).result).toMatchObject({ frames: 1, duration: 0.5, frameRate: 10 });
  });

  it("a looping GIF says so", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, format: "gif", start: 0, duration: 1, width: 64, fps: 4 });
    const meta = await sharp(await job.output(completed(job.state).result.url), { animated: true }).metadata();
    expect([meta.pages, meta.loop]).toEqual([4, 0]);
  });

  it("makes a silent H.264 MP4 (yuv420p, index first) of the span, from a video with sound", async () => {
    const job = await runJob("videoPreview", { url: await serve("small"), format: "mp4", start: 1, duration: 2, width: 200, fps: 12 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.streams.map((s) => s.codec_type)).toEqual(["video"]);
    const video = probe.streams[0] as unknown as Record<string, unknown>;
    expect([video.codec_name, video.pix_fmt, video.width, video.height, video.avg_frame_rate, video.nb_frames]).toEqual(["h264", "yuv420p", 200, 112, "12/1", "24"]);
    // faststart: the index (moov) before the media (mdat).
    expect(bytes.indexOf("moov")).toBeLessThan(bytes.indexOf("mdat"));
    expect(result).toMatchObject({ url: "preview.mp4", size: bytes.length, width: 200, height: 112, format: "mp4", duration: 2, frameRate: 12, frames: 24, start: 1 });
    expect(result.source).toMatchObject({ duration: 6, width: 320, height: 180, hasAudio: true });
    expect(outputs[0]!.contentType).toBe("video/mp4");
  });

  it("an MP4's first and last frames are those of the span", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, format: "mp4", start: 3.5, duration: 1.2 });
    const bytes = await job.output(completed(job.state).result.url);
    expect(await mp4FrameColour(bytes, "first")).toBe("yellow");
    expect(await mp4FrameColour(bytes, "last")).toBe("magenta");
  });

  it("without a start, shows a span around a third of the video, inside it", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, duration: 2, fps: 5 });
    const { result } = completed(job.state);
    // Centred on 2 s: 1 s to 3 s.
    expect(result).toMatchObject({ start: 1, duration: 2, frames: 10 });
    const bytes = await job.output(result.url);
    expect(await pageColour(bytes, 0)).toBe(SECONDS[1]);
    expect(await pageColour(bytes, 9)).toBe(SECONDS[2]);
  });

  it("shows a video shorter than the duration whole, and a span cut short by the end", async () => {
    const whole = await runJob("videoPreview", { url: coloursUrl, duration: 10, fps: 2, width: 32 });
    expect(completed(whole.state).result).toMatchObject({ start: 0, duration: 6, frames: 12 });
    const cut = await runJob("videoPreview", { url: coloursUrl, start: 5, duration: 4, fps: 2, width: 32 });
    expect(completed(cut.state).result).toMatchObject({ start: 5, duration: 1, frames: 2 });
  });

  it("never enlarges the picture nor repeats frames: width and frame rate stop at the video's own", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, start: 0, duration: 1, width: 640, fps: 30 });
    expect(completed(job.state).result).toMatchObject({ width: 320, height: 240, frameRate: 25, frames: 25 });
  });

  it("with segments, joins that many clips spread evenly over the video, each the part asked for", async () => {
    // 3 clips of 1 s, centred in each 2 s third of the 6 s clip: 0.5, 2.5 and 4.5 s, each from the frame on screen then.
    const job = await runJob("videoPreview", { url: coloursUrl, format: "gif", duration: 3, segments: 3, fps: 5, width: 64 });
    const { result } = completed(job.state);
    expect(result).toMatchObject({
      start: 0.48,
      duration: 3,
      frames: 15,
      segments: [{ start: 0.48, duration: 1 }, { start: 2.48, duration: 1 }, { start: 4.48, duration: 1 }],
    });
    const bytes = await job.output(result.url);
    const shown = await Promise.all([0, 4, 5, 9, 10, 14].map((page) => pageColour(bytes, page)));
    // Each clip's first and last frames (0.48 and 1.28 s, 2.48 and 3.28 s, 4.48 and 5.28 s), across each second's change of colour.
    expect(shown).toEqual(["red", "lime", "blue", "yellow", "magenta", "cyan"]);
  });

  it("with segments, an MP4 is as long as the segments together", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, format: "mp4", duration: 4, segments: 2, fps: 10, width: 64 });
    const { result } = completed(job.state);
    // 2 s each, centred in each 3 s half: 0.5 and 3.5 s, on the frame grid 0.48 and 3.48 s.
    expect(result).toMatchObject({ start: 0.48, duration: 4, frames: 40, segments: [{ start: 0.48, duration: 2 }, { start: 3.48, duration: 2 }] });
    const bytes = await job.output(result.url);
    // 0.48 s is red, 5.38 s (the second segment's last frame) cyan.
    expect(await mp4FrameColour(bytes, "first")).toBe("red");
    expect(await mp4FrameColour(bytes, "last")).toBe("cyan");
  });

  it.each(["webp", "gif", "mp4"] as const)("a start inside the last frame gives that one frame (%s)", async (format) => {
    const job = await runJob("videoPreview", { url: coloursUrl, start: 5.99, format, width: 64 });
    expect(completed(job.state).result).toMatchObject({ start: 5.96, frames: 1, duration: 0.04 });
  });

  it("refuses a start past the end, naming the video's length", async () => {
    const job = await runJob("videoPreview", { url: coloursUrl, start: 6 });
    expect(failed(job.state).error).toEqual({
      code: "invalid_input",
      message: "start 6 s is at or past the end of the video, which is 6 s long; use a start from 0 to below 6",
    });
  });

  it("reads a WebM (VP9 + Opus) input as well", async () => {
    const job = await runJob("videoPreview", { url: await serve("webm"), format: "gif", start: 1, duration: 1, fps: 5, width: 160 });
    expect(completed(job.state).result).toMatchObject({ width: 160, height: 90, frames: 5, source: { format: "webm", width: 320, height: 180, hasAudio: true } });
  });

  it("refuses an input without a picture", async () => {
    const audio = join(dir, "tone.m4a");
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:d=2", "-c:a", "aac", audio]);
    const job = await runJob("videoPreview", { url: serveBytes("/tone.m4a", await readFile(audio)) });
    expect(failed(job.state).error.code).toBe("no_video_stream");
  });
});

describe("previewSpans", () => {
  it.each([
    // [segments, duration, video length] → the spans
    [3, 3, 6, [[0.5, 1], [2.5, 1], [4.5, 1]]],
    [5, 5, 100, [[9.5, 1], [29.5, 1], [49.5, 1], [69.5, 1], [89.5, 1]]],
    [2, 10, 6, [[0, 6]]],
  ])("%s segments, %s s of a %s s video: %j", (segments, duration, length, spans) => {
    expect(previewSpans({ segments, duration }, length)).toEqual(spans.map(([start, d]) => ({ start, duration: d })));
  });
});

describe("previewSpan", () => {
  it.each([
    // [start, duration, video length] → [start, duration]
    [undefined, 5, 60, 17.5, 5],
    [undefined, 5, 6, 0, 5],
    [undefined, 5, 4, 0, 4],
    [undefined, 2, 3, 0, 2],
    [undefined, 10, 600, 195, 10],
    [0, 5, 60, 0, 5],
    [58, 5, 60, 58, 2],
  ])("start %s, duration %s of a %s s video: from %s s for %s s", (start, duration, length, from, seconds) => {
    expect(previewSpan({ start, duration }, length)).toEqual({ start: from, duration: seconds });
  });
});

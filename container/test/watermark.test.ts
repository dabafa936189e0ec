// Watermarks (tools/watermark.ts) on compressImage, compressVideo, videoThumbnail and
// videoExtraction's frames: the overlay is where it was asked, as strong as asked, text is
// drawn as written, and a logo that cannot be used fails with its own code.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watermark as watermarkSchema, type WatermarkPosition } from "../../src/contract/common.ts";
import { compressVideoParams } from "../../src/contract/jobs/compress-video.ts";
import { JobFailure } from "../src/errors.ts";
import { buildArgs as buildVideoArgs } from "../src/processors/compress-video.ts";
import { escapeGraph, overlayBox, prepareWatermark, quoteOption, sharpOverlay, type Box, type PreparedWatermark } from "../src/tools/watermark.ts";
import { runJob, startMediaServer, testConfig, type MediaServer } from "./helpers.ts";
import { completed, failed, ffprobe } from "./video-fixtures.ts";

const exec = promisify(execFile);
const FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

let media: MediaServer;
let dir: string;
let blackPng: string;
let blackVideo: string;
let logoUrl: string;
beforeAll(async () => {
  media = await startMediaServer();
  dir = await mkdtemp(join(tmpdir(), "media-jobs-watermark-"));
  blackPng = media.serve("/black.png", await sharp({ create: { width: 400, height: 300, channels: 3, background: "#000" } }).png().toBuffer());
  // A 2:1 white logo, opaque: where it lands the output is white, elsewhere black.
  logoUrl = media.serve("/logo.png", await sharp({ create: { width: 200, height: 100, channels: 4, background: "#fff" } }).png().toBuffer(), "image/png");
  const video = join(dir, "black.mp4");
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=320x240:r=25:d=2", "-f", "lavfi", "-i", "sine=frequency=440:d=2",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", video,
  ]);
  blackVideo = media.serve("/black.mp4", await readFile(video));
});
afterAll(async () => {
  await media.close();
  await rm(dir, { recursive: true, force: true });
});

/** Min and max of the first channel of a region (stats() reads the input, so the region is cut out first). */
async function range(image: Buffer, region: { left: number; top: number; width: number; height: number }): Promise<[number, number]> {
  const { channels } = await sharp(await sharp(image).extract(region).toBuffer()).stats();
  return [channels[0]!.min, channels[0]!.max];
}

/** Mean brightness (0–255) of a region of a picture, its colour channels averaged. */
async function brightness(image: Buffer, region: { left: number; top: number; width: number; height: number }): Promise<number> {
  const { channels } = await sharp(await sharp(image).removeAlpha().extract(region).toBuffer()).stats();
  return channels.reduce((sum, c) => sum + c.mean, 0) / channels.length;
}

/** The box a watermark takes, 2 px in from its edges (scaling and chroma subsampling soften them). */
const inner = (box: Box) => ({ left: box.left + 2, top: box.top + 2, width: box.width - 4, height: box.height - 4 });

/** The same-sized box at the opposite corner of a `width`×`height` picture. */
const opposite = (box: Box, width: number, height: number) => ({ ...inner(box), left: width - box.left - box.width + 2, top: height - box.top - box.height + 2 });

/** The prepared form of the 200×100 logo, for laying out where the processor puts it. */
const logo = (w: { position?: WatermarkPosition; opacity?: number; size?: number; margin?: number }): PreparedWatermark => {
  const parsed = watermarkSchema.parse({ url: logoUrl, ...w });
  return { kind: "image", path: "", width: 200, height: 100, position: parsed.position, margin: parsed.margin, opacity: parsed.opacity, size: parsed.size ?? 0.15 };
};

async function firstFrame(video: Buffer): Promise<Buffer> {
  const path = join(dir, `out-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(path, video);
  const { stdout } = await exec("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"], { encoding: "buffer" });
  await rm(path, { force: true });
  return stdout;
}

describe("overlayBox", () => {
  it("takes size of the width, keeps the logo's aspect, and sits margin × the shorter side from the edges it is near", () => {
    expect(overlayBox(logo({ size: 0.25 }), { width: 400, height: 300 })).toEqual({ left: 400 - 100 - 6, top: 300 - 50 - 6, width: 100, height: 50, margin: 6 });
    expect(overlayBox(logo({ position: "top-left", size: 0.25, margin: 0 }), { width: 400, height: 300 })).toMatchObject({ left: 0, top: 0 });
    expect(overlayBox(logo({ position: "center", size: 0.5 }), { width: 400, height: 300 })).toMatchObject({ left: 100, top: 100, width: 200, height: 100 });
    expect(overlayBox(logo({ position: "top", size: 0.5 }), { width: 400, height: 300 })).toMatchObject({ left: 100, top: 6 });
  });

  it("makes an overlay that would not fit inside the margins smaller, keeping its aspect", () => {
    // Full width of a tall picture fits; of a wide strip, the height decides.
    expect(overlayBox(logo({ size: 1, margin: 0 }), { width: 100, height: 400 })).toMatchObject({ width: 100, height: 50 });
    expect(overlayBox(logo({ size: 1, margin: 0.1 }), { width: 400, height: 50 })).toMatchObject({ width: 80, height: 40, margin: 5 });
  });
});

describe("compressVideo's command line with a watermark", () => {
  const probe = {
    format: "mp4", duration: 10, size: 1_000_000, bitRate: 800_000,
    video: { index: 1, codec: "h264", width: 1920, height: 1080, frameRate: 25 },
    audio: { index: 0, codec: "aac", bitRate: 128_000, channels: 2, startTime: 0 },
  };
  const params = (watermark: unknown) => compressVideoParams.parse({ url: "https://e.com/a.mp4", maxWidth: 640, watermark });

  it("scales the input's video stream, overlays the logo (input 1) on the scaled picture, and maps the audio beside it", () => {
    const prepared = { ...logo({ size: 0.25 }), path: "/w/watermark.png" };
    const args = buildVideoArgs(params({ url: logoUrl, size: 0.25 }), probe, { input: "/w/input", output: "/w/out.mp4" }, prepared);
    expect(args.filter((a, i) => args[i - 1] === "-i")).toEqual(["/w/input", "/w/watermark.png"]);
    const box = overlayBox(prepared, { width: 640, height: 360 });
    expect(args[args.indexOf("-filter_complex") + 1]).toBe(
      `[0:1]scale=640:360,setsar=1[scaled];[1:v]format=rgba,scale=${box.width}:${box.height}:flags=lanczos,colorchannelmixer=aa=1[wm1];[scaled][wm1]overlay=x=${box.left}:y=${box.top}:format=auto[video]`,
    );
    expect(args.filter((a, i) => args[i - 1] === "-map")).toEqual(["[video]", "0:0"]);
    expect(args).not.toContain("-vf");
  });

  it("draws text with drawtext on the scaled picture, no extra input", () => {
    const prepared: PreparedWatermark = { kind: "text", text: "a:b", fontFile: FONT, fontFamily: "DejaVu Sans", widthPerPx: 2, heightPerPx: 1.2, position: "top-left", margin: 0.02, opacity: 0.6, size: 0.05 };
    const args = buildVideoArgs(params({ text: "a:b" }), probe, { input: "/w/input", output: "/w/out.mp4" }, prepared);
    expect(args.filter((a, i) => args[i - 1] === "-i")).toEqual(["/w/input"]);
    const graph = args[args.indexOf("-filter_complex") + 1]!;
    expect(graph).toMatch(/^\[0:1\]scale=640:360,setsar=1\[scaled\];\[scaled\]drawtext=fontfile=\\'.*\\':text=\\'a:b\\':expansion=none:fontsize=18:fontcolor=white@0.6:.*\[video\]$/);
  });
});

describe("text for sharp (Pango markup)", () => {
  it("draws markup characters as written: a <b> tag is text, a lone < or & does not break the markup", async () => {
    const config = await testConfig();
    const prepare = (text: string) => prepareWatermark(watermarkSchema.parse({ text }), { workDir: config.workDir, signal: new AbortController().signal, config });
    const x = await prepare("x");
    const tagged = await prepare("<b>x</b>");
    // Eight glyphs drawn, not one bold x.
    expect(tagged.kind === "text" && x.kind === "text" && tagged.widthPerPx / x.widthPerPx).toBeGreaterThan(6);
    await expect(prepare(`a < b & c "d" 'e' &amp;`)).resolves.toMatchObject({ kind: "text" });
  });
});

describe("sharpOverlay", () => {
  it("fits text of any size on any picture inside its margins (drawn text can come out wider than measured)", async () => {
    const config = await testConfig();
    const signal = new AbortController().signal;
    for (const text of ["© acme", "a much longer line of copyright text, 2026"]) {
      for (const size of [0.05, 0.3, 1]) {
        const prepared = await prepareWatermark(watermarkSchema.parse({ text, size }), { workDir: config.workDir, signal, config });
        for (const [width, height] of [[400, 300], [64, 48], [33, 500], [1000, 20]] as const) {
          const layer = await sharpOverlay(prepared, { width, height });
          const base = sharp({ create: { width, height, channels: 3, background: "#808080" } });
          const out = await base.composite([layer]).png().toBuffer();
          expect((await sharp(out).metadata()).width, `${text} ${size} ${width}×${height}`).toBe(width);
          expect(layer.raw!.width).toBeLessThanOrEqual(width);
          expect(layer.raw!.height).toBeLessThanOrEqual(height);
        }
      }
    }
  });
});

describe("watermark on compressImage", () => {
  it("puts an opaque logo at the bottom-right corner, inside its margin, and leaves the top-left alone", async () => {
    const job = await runJob("compressImage", { url: blackPng, format: "png", watermark: { url: logoUrl, size: 0.25 } });
    const { result } = completed(job.state);
    const out = await job.output(result.url);
    expect(result).toMatchObject({ width: 400, height: 300, keptOriginal: false });
    const box = overlayBox(logo({ size: 0.25 }), { width: 400, height: 300 });
    expect(await brightness(out, inner(box))).toBeGreaterThan(250);
    expect(await brightness(out, opposite(box, 400, 300))).toBeLessThan(3);
    // The margin between the logo and the corner stays black.
    expect(await brightness(out, { left: 400 - box.margin, top: 300 - box.margin, width: box.margin, height: box.margin })).toBeLessThan(3);
  });

  it.each(["jpeg", "webp", "avif"] as const)("takes a %s logo as well as a PNG", async (format) => {
    const bytes = await sharp({ create: { width: 200, height: 100, channels: 3, background: "#fff" } }).toFormat(format, { quality: 90 }).toBuffer();
    const job = await runJob("compressImage", { url: blackPng, format: "png", watermark: { url: media.serve(`/logo.${format}`, bytes), size: 0.25 } });
    const out = await job.output(completed(job.state).result.url);
    const box = overlayBox(logo({ size: 0.25 }), { width: 400, height: 300 });
    expect(await brightness(out, inner(box))).toBeGreaterThan(245);
    expect(await brightness(out, opposite(box, 400, 300))).toBeLessThan(3);
  });

  it("at opacity 0.5 the logo is about half as bright", async () => {
    const job = await runJob("compressImage", { url: blackPng, format: "png", quality: 100, watermark: { url: logoUrl, size: 0.25, opacity: 0.5, position: "top-left" } });
    const out = await job.output(completed(job.state).result.url);
    const box = overlayBox(logo({ size: 0.25, position: "top-left" }), { width: 400, height: 300 });
    expect(await brightness(out, inner(box))).toBeGreaterThan(118);
    expect(await brightness(out, inner(box))).toBeLessThan(138);
  });

  it("lays the logo on the resized picture, at its corner, when sharp rounds a side its own way", async () => {
    // 4000×2999 inside 800 px is 800×599 by sharp's rounding.
    const big = media.serve("/big.jpg", await sharp({ create: { width: 4000, height: 2999, channels: 3, background: "#000" } }).jpeg().toBuffer());
    const job = await runJob("compressImage", { url: big, maxWidth: 800, format: "png", watermark: { url: logoUrl, size: 0.25, margin: 0 } });
    const { result } = completed(job.state);
    expect([result.width, result.height]).toEqual([800, 599]);
    const out = await job.output(result.url);
    expect(await brightness(out, { left: 800 - 3, top: 599 - 3, width: 3, height: 3 })).toBeGreaterThan(250);
  });

  it("draws text: the corner asked for has white and shadow, the rest stays flat", async () => {
    const grey = media.serve("/grey.png", await sharp({ create: { width: 400, height: 300, channels: 3, background: "#808080" } }).png().toBuffer());
    const job = await runJob("compressImage", { url: grey, format: "png", watermark: { text: "© acme", size: 0.1 } });
    const out = await job.output(completed(job.state).result.url);
    const [min, max] = await range(out, { left: 200, top: 240, width: 200, height: 60 });
    expect(max).toBeGreaterThan(240);
    expect(min).toBeLessThan(80);
    expect(await range(out, { left: 0, top: 0, width: 400, height: 200 })).toEqual([128, 128]);
  });
});

describe("an opaque picture stays opaque with a watermark", () => {
  /** A photo-like opaque picture (noise, so the encoders have something to weigh) in `format`. */
  async function opaque(format: "jpeg" | "png" | "avif") {
    const noise = Buffer.from(Array.from({ length: 200 * 150 * 3 }, (_, i) => (i * 7919) % 251));
    const bytes = await sharp(noise, { raw: { width: 200, height: 150, channels: 3 } }).resize(400, 300).toFormat(format).toBuffer();
    return media.serve(`/opaque-${format}-${Math.random().toString(36).slice(2)}`, bytes);
  }

  const probe = async (bytes: Buffer) => {
    const { format, channels, hasAlpha } = await sharp(bytes).metadata();
    return { format, channels, hasAlpha };
  };

  it.each([
    ["a JPEG kept as JPEG", "jpeg", {}, "jpeg"],
    ["a JPEG made a lossless PNG", "jpeg", { format: "png", quality: 100 }, "png"],
    ["a JPEG made a palette PNG", "jpeg", { format: "png", quality: 80 }, "png"],
    ["a PNG kept as PNG, lossless", "png", { quality: 100 }, "png"],
    ["an AVIF kept as AVIF", "avif", {}, "heif"],
    ["a JPEG made WebP", "jpeg", { format: "webp" }, "webp"],
  ] as const)("%s: text and logo watermarks add no alpha channel, and the format is the one it had without", async (_name, input, options, format) => {
    const url = await opaque(input);
    for (const watermark of [{ text: "© acme", size: 0.1 }, { url: logoUrl, size: 0.25 }]) {
      const plain = await runJob("compressImage", { url, ...options });
      const marked = await runJob("compressImage", { url, ...options, watermark });
      const without = completed(plain.state).result;
      const withMark = completed(marked.state).result;
      expect(withMark.format).toBe(without.format);
      const out = await marked.output(withMark.url);
      expect(await probe(out)).toEqual({ format, channels: 3, hasAlpha: false });
      // The watermark is there all the same.
      const [, max] = await range(out, { left: 200, top: 150, width: 200, height: 150 });
      expect(max).toBeGreaterThan(200);
    }
  });

  it("a lossless PNG with a watermark is about the size of the same PNG without (no unused alpha plane)", async () => {
    const url = await opaque("jpeg");
    const plain = await runJob("compressImage", { url, format: "png", quality: 100 });
    const marked = await runJob("compressImage", { url, format: "png", quality: 100, watermark: { text: "© acme", size: 0.1 } });
    expect(completed(marked.state).result.size).toBeLessThan(completed(plain.state).result.size * 1.05);
  });

  it("a picture with transparency keeps it, and so does contain's transparent padding", async () => {
    const clear = media.serve("/clear.png", await sharp({ create: { width: 400, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer());
    const job = await runJob("compressImage", { url: clear, watermark: { text: "© acme", size: 0.1 } });
    expect(await probe(await job.output(completed(job.state).result.url))).toEqual({ format: "png", channels: 4, hasAlpha: true });

    const padded = await runJob("compressImage", { url: await opaque("jpeg"), format: "png", maxWidth: 400, maxHeight: 400, fit: "contain", watermark: { text: "© acme", size: 0.1 } });
    expect(await probe(await padded.output(completed(padded.state).result.url))).toEqual({ format: "png", channels: 4, hasAlpha: true });
    // Padding in a colour is opaque.
    const coloured = await runJob("compressImage", { url: await opaque("jpeg"), format: "png", maxWidth: 400, maxHeight: 400, fit: "contain", background: "#336699", watermark: { text: "© acme", size: 0.1 } });
    expect(await probe(await coloured.output(completed(coloured.state).result.url))).toEqual({ format: "png", channels: 3, hasAlpha: false });
  });

  it("videoThumbnail and videoExtraction's PNG frames stay RGB with a watermark", async () => {
    const thumb = await runJob("videoThumbnail", { url: blackVideo, timestamp: 1, format: "png", watermark: { text: "© acme", size: 0.1 } });
    expect(await probe(await thumb.output(completed(thumb.state).result.url))).toEqual({ format: "png", channels: 3, hasAlpha: false });
    const job = await runJob("videoExtraction", { url: blackVideo, audio: false, frames: { mode: "count", count: 1, format: "png", width: 160, watermark: { url: logoUrl, size: 0.25 } } });
    const [frame] = completed(job.state).result.frames;
    expect(await probe(await job.output(frame!.url))).toEqual({ format: "png", channels: 3, hasAlpha: false });
  });
});

describe("watermark on video", () => {
  it("compressVideo overlays the logo on every frame at the top-left, scaled to the output", async () => {
    const job = await runJob("compressVideo", { url: blackVideo, watermark: { url: logoUrl, position: "top-left", size: 0.25 } });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", width: 320, height: 240 });
    // The graph takes the video; the audio is mapped beside it as without a watermark.
    expect(probe.streams.find((s) => s.codec_type === "audio")).toMatchObject({ codec_name: "aac" });
    expect(result).toMatchObject({ width: 320, height: 240, codec: "h264" });
    const frame = await firstFrame(bytes);
    const box = overlayBox(logo({ position: "top-left", size: 0.25 }), { width: 320, height: 240 });
    expect(await brightness(frame, inner(box))).toBeGreaterThan(235);
    expect(await brightness(frame, opposite(box, 320, 240))).toBeLessThan(20);
  });

  it("compressVideo at opacity 0.5 gives about half the brightness, laid out on the scaled-down output", async () => {
    const job = await runJob("compressVideo", { url: blackVideo, maxWidth: 160, watermark: { url: logoUrl, size: 0.25, opacity: 0.5 } });
    const { result } = completed(job.state);
    expect([result.width, result.height]).toEqual([160, 120]);
    const frame = await firstFrame(await job.output(result.url));
    const box = overlayBox(logo({ size: 0.25 }), { width: 160, height: 120 });
    expect(box).toMatchObject({ width: 40, height: 20 });
    const level = await brightness(frame, inner(box));
    // Video levels: black is 16 and white 235, so half is about 125.
    expect(level).toBeGreaterThan(110);
    expect(level).toBeLessThan(140);
  });

  it("compressVideo draws hostile text as written: quotes, colons, backslashes, brackets and %{…} do not break the graph", async () => {
    const text = `it's a:b\\c 100% %{pts} [x],y;z \\' \\\\:`;
    const job = await runJob("compressVideo", { url: blackVideo, watermark: { text, position: "bottom", size: 0.08 } });
    const frame = await firstFrame(await job.output(completed(job.state).result.url));
    expect((await range(frame, { left: 0, top: 180, width: 320, height: 60 }))[1]).toBeGreaterThan(200);
    expect(await brightness(frame, { left: 0, top: 0, width: 320, height: 150 })).toBeLessThan(20);
  });

  it("videoThumbnail and videoExtraction's frames carry the watermark", async () => {
    const thumb = await runJob("videoThumbnail", { url: blackVideo, timestamp: 1, format: "png", watermark: { url: logoUrl, size: 0.25 } });
    const box = overlayBox(logo({ size: 0.25 }), { width: 320, height: 240 });
    const thumbnail = await thumb.output(completed(thumb.state).result.url);
    expect(await brightness(thumbnail, inner(box))).toBeGreaterThan(235);
    expect(await brightness(thumbnail, opposite(box, 320, 240))).toBeLessThan(20);

    const job = await runJob("videoExtraction", { url: blackVideo, audio: false, frames: { mode: "count", count: 2, format: "png", width: 160, watermark: { url: logoUrl, size: 0.25 } } });
    const { result } = completed(job.state);
    expect(result.frames).toHaveLength(2);
    const small = overlayBox(logo({ size: 0.25 }), { width: 160, height: 120 });
    for (const frame of result.frames) {
      const bytes = await job.output(frame.url);
      expect(await brightness(bytes, inner(small))).toBeGreaterThan(235);
      expect(await brightness(bytes, opposite(small, 160, 120))).toBeLessThan(20);
    }
  });
});

describe("watermarks on the new video types", () => {
  it.each(["gif", "webp", "mp4"] as const)("videoPreview as %s carries the logo on its frames, laid out on the preview's size", async (format) => {
    const job = await runJob("videoPreview", { url: blackVideo, format, start: 0, duration: 1, width: 160, fps: 5, watermark: { url: logoUrl, size: 0.25 } });
    const { result } = completed(job.state);
    expect(result).toMatchObject({ width: 160, height: 120, format });
    const bytes = await job.output(result.url);
    // The last frame of an animation (sharp: page n-1), or the MP4's first.
    const frame = format === "mp4" ? await firstFrame(bytes) : await sharp(bytes, { page: result.frames - 1 }).png().toBuffer();
    const box = overlayBox(logo({ size: 0.25 }), { width: 160, height: 120 });
    expect(await brightness(frame, inner(box))).toBeGreaterThan(220);
    expect(await brightness(frame, opposite(box, 160, 120))).toBeLessThan(30);
  });
  it("videoAdaptive carries the logo in every rendition, at the same place and relative size", async () => {
    const job = await runJob("videoAdaptive", { url: blackVideo, renditions: [{ height: 144 }, { height: 240 }], segmentDuration: 2, watermark: { url: logoUrl, size: 0.25 } });
    const { result } = completed(job.state);
    const renditions = result.renditions as { url: string; width: number; height: number }[];
    expect(renditions.map((r) => [r.width, r.height])).toEqual([[192, 144], [320, 240]]);
    for (const rendition of renditions) {
      const frame = await firstFrame(await job.output(rendition.url.replace(/\.m3u8$/, ".mp4")));
      const box = overlayBox(logo({ size: 0.25 }), { width: rendition.width, height: rendition.height });
      expect(await brightness(frame, inner(box))).toBeGreaterThan(220);
      expect(await brightness(frame, opposite(box, rendition.width, rendition.height))).toBeLessThan(30);
    }
  });

  it("videoAdaptive lays the logo out on the displayed picture of an anamorphic input (240×180 stored, 4:3 pixels, 320×180 shown)", async () => {
    const path = join(dir, "anamorphic.mp4");
    await exec("ffmpeg", [
      "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=240x180:r=25:d=2", "-vf", "setsar=4/3",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path,
    ]);
    const url = media.serve("/anamorphic.mp4", await readFile(path));
    const job = await runJob("videoAdaptive", { url, renditions: [{ height: 180 }], segmentDuration: 2, watermark: { url: logoUrl, size: 0.25 } });
    const [rendition] = completed(job.state).result.renditions as { url: string; width: number; height: number }[];
    expect([rendition!.width, rendition!.height]).toEqual([320, 180]);
    const frame = await firstFrame(await job.output(rendition!.url.replace(/\.m3u8$/, ".mp4")));
    const box = overlayBox(logo({ size: 0.25 }), { width: 320, height: 180 });
    expect(await brightness(frame, inner(box))).toBeGreaterThan(220);
    expect(await brightness(frame, opposite(box, 320, 180))).toBeLessThan(30);
  });

  it("videoStoryboard carries the logo on every tile, laid out on the tile's size", async () => {
    const job = await runJob("videoStoryboard", { url: blackVideo, count: 2, columns: 2, width: 160, format: "jpg", quality: 95, watermark: { url: logoUrl, size: 0.25 } });
    const { result } = completed(job.state);
    expect(result.tile).toMatchObject({ width: 160, height: 120, count: 2, columns: 2 });
    const sprite = await job.output(result.sprite.url);
    const box = overlayBox(logo({ size: 0.25 }), { width: 160, height: 120 });
    for (const column of [0, 1]) {
      const tile = await sharp(sprite).extract({ left: column * 160, top: 0, width: 160, height: 120 }).png().toBuffer();
      expect(await brightness(tile, inner(box))).toBeGreaterThan(220);
      expect(await brightness(tile, opposite(box, 160, 120))).toBeLessThan(30);
    }
  });
});

describe("drawtext escaping", () => {
  it.each([
    [`it's a:b\\c 100% %{pts} [x],y;z 'q' \\' \\\\:`],
    [`  spaces either side  `],
    [`%{localtime} %% \\n =`],
  ])("draws %j exactly as drawtext draws the same bytes read from a file", async (text) => {
    const file = join(dir, "text.txt");
    await writeFile(file, text);
    const draw = async (options: string) => {
      const { stdout } = await exec(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=640x80", "-filter_complex", `[0:v]drawtext=${options}[out]`, "-map", "[out]", "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"],
        { encoding: "buffer" },
      );
      return stdout;
    };
    const common = "expansion=none:fontsize=30:fontcolor=white:x=5:y=20";
    const escaped = await draw(escapeGraph(`fontfile=${quoteOption(FONT)}:text=${quoteOption(text)}:${common}`));
    const literal = await draw(`fontfile=${FONT}:textfile=${file}:${common}`);
    expect(escaped.equals(literal)).toBe(true);
    const { channels } = await sharp(escaped).stats();
    expect(channels[0]!.max).toBeGreaterThan(200);
  });
});

describe("a watermark that cannot be used", () => {
  it.each([
    ["an SVG", "/logo.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#fff"/></svg>`, "image/svg+xml", "watermark_invalid", /SVG and HTML are refused/],
    ["an HTML page", "/logo.html", "<!doctype html><title>logo</title>", "text/html", "watermark_invalid", /PNG, JPEG, WebP or AVIF/],
    ["a truncated PNG", "/cut.png", "", "image/png", "watermark_invalid", /damaged or truncated/],
  ])("fails %s with %s", async (_, path, body, contentType, code, message) => {
    const bytes = body || (await sharp({ create: { width: 64, height: 64, channels: 3, background: "#f00", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer()).subarray(0, 300);
    const url = media.serve(path, bytes, contentType);
    const job = await runJob("compressImage", { url: blackPng, watermark: { url } });
    expect(failed(job.state).error).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it("fails a URL that answers 404 with watermark_unavailable, naming the status", async () => {
    const job = await runJob("compressVideo", { url: blackVideo, watermark: { url: media.url("/missing.png") } });
    expect(failed(job.state).error).toMatchObject({ code: "watermark_unavailable", message: expect.stringMatching(/HTTP 404/) });
  });

  it("refuses a logo at a private address with the input's SSRF rules", async () => {
    const config = await testConfig({ ALLOW_PRIVATE_NETWORK_INPUTS: "false" });
    const signal = new AbortController().signal;
    for (const url of ["http://127.0.0.1/logo.png", "http://[::1]:8080/logo.png", "http://169.254.169.254/latest/logo.png", "http://10.0.0.1/logo.png"]) {
      const error = await prepareWatermark(watermarkSchema.parse({ url }), { workDir: config.workDir, signal, config }).catch((e: unknown) => e);
      expect(error, String(error)).toBeInstanceOf(JobFailure);
      expect({ code: (error as JobFailure).code, message: (error as JobFailure).message }).toEqual({ code: "watermark_unavailable", message: expect.stringMatching(/non-public address/) });
    }
  });

  it("fails a logo over WATERMARK_MAX_BYTES with watermark_invalid", async () => {
    const config = await testConfig({ WATERMARK_MAX_BYTES: "1000" });
    const big = media.serve("/big-logo.png", await sharp({ create: { width: 256, height: 256, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer());
    const job = await runJob("compressImage", { url: blackPng, watermark: { url: big } }, { config });
    expect(failed(job.state).error).toMatchObject({ code: "watermark_invalid", message: expect.stringMatching(/over the limit of 1000 bytes.*smaller image/) });
  });

  it("fails a text watermark with a plain message when the processor's font is missing", async () => {
    const config = await testConfig({ WATERMARK_FONT_FILE: join(dir, "no-such-font.ttf") });
    const job = await runJob("compressImage", { url: blackPng, watermark: { text: "© acme" } }, { config });
    expect(failed(job.state).error).toMatchObject({ code: "processing_failed", message: expect.stringMatching(/its font is missing\); use an image watermark/) });
  });
});

import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { Position } from "../../src/contract/common.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { detail, runJob } from "./helpers.ts";
import { completed, failed, meanLuma, useVideoMedia } from "./video-fixtures.ts";

/** A frame whose mean luma is below this is black (a testsrc2 frame is about 100). */
const BLACK_LUMA = 40;

const { serve, serveBytes, fixtureBytes } = useVideoMedia();

describe("videoThumbnail", () => {
  it("takes the frame at a given second of a 1080p video as a full-size JPEG", async () => {
    const input = await fixtureBytes("hd");
    const job = await runJob("videoThumbnail", { url: serveBytes("/hd.mp4", input), timestamp: 4 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1920, 1080]);
    expect(result).toMatchObject({ url: "thumbnail.jpg", size: bytes.length, width: 1920, height: 1080, format: "jpg", timestamp: 4 });
    expect(result.source).toEqual({ size: input.length, width: 1920, height: 1080, duration: 10 });
    expect(outputs).toEqual([{ name: "thumbnail.jpg", contentType: "image/jpeg", size: bytes.length }]);
    expect(parseStoredResult("videoThumbnail", result)).toEqual({ ok: true, value: result });
    // A plain JPEG: ffmpeg writes it (thumbnail-jpeg.test.ts).
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
  });

  it("reports the start of the frame on screen at the time asked for", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 2.01, width: 64 });
    expect(completed(job.state).result.timestamp).toBe(2);
  });

  it('"auto" never picks a black frame or one inside the fade-in', async () => {
    const job = await runJob("videoThumbnail", { url: await serve("hdFadeIn"), width: 480 });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect(await meanLuma(bytes)).toBeGreaterThan(BLACK_LUMA);
    // Black until 2 s, fading in until 3 s.
    expect(result.timestamp).toBeGreaterThanOrEqual(3);
    expect(result.timestamp).toBeLessThan(10);
    expect([result.width, result.height]).toEqual([480, 270]);
  });

  it('"auto" on a video black at both ends picks a lit frame', async () => {
    const job = await runJob("videoThumbnail", { url: await serve("silentBlackEnds"), timestamp: "auto", format: "png" });
    const { result } = completed(job.state);
    expect(await meanLuma(await job.output(result.url))).toBeGreaterThan(BLACK_LUMA);
    expect(result.timestamp).toBeGreaterThanOrEqual(1);
    expect(result.timestamp).toBeLessThan(3);
  });

  it("with width and height, covers that exact box, cropping the overflow", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 1, width: 100, height: 100, format: "webp", quality: 70 });
    const { result, outputs } = completed(job.state);
    const meta = await sharp(await job.output(result.url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 100, 100]);
    expect(result).toMatchObject({ url: "thumbnail.webp", width: 100, height: 100, format: "webp" });
    expect(outputs[0]!.contentType).toBe("image/webp");
  });

  it("with only a height, keeps the aspect ratio; PNG output", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 0, height: 90, format: "png" });
    const meta = await sharp(await job.output(completed(job.state).result.url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 160, 90]);
  });

  it("quality changes the JPEG's size", async () => {
    const url = await serve("small");
    const low = await runJob("videoThumbnail", { url, timestamp: 3, quality: 20 });
    const high = await runJob("videoThumbnail", { url, timestamp: 3, quality: 95 });
    expect(completed(low.state).result.size).toBeLessThan(completed(high.state).result.size);
  });

  it("refuses a timestamp past the end, naming the video's length", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 30 });
    expect(failed(job.state).error).toMatchObject({ code: "invalid_input", message: expect.stringContaining("6 s long") });
  });

  it("takes the last frame when asked for the very end", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("small"), timestamp: 6 });
    expect(completed(job.state).result.timestamp).toBe(5.96);
  });

  it("fails a text file named .mp4 with unsupported_media", async () => {
    const job = await runJob("videoThumbnail", { url: await serve("text") });
    expect(failed(job.state).error.code).toBe("unsupported_media");
  });
});

const region = (bytes: Buffer, left: number, top: number, width: number, height: number) => sharp(bytes).extract({ left, top, width, height }).toBuffer();

describe("videoThumbnail fit and position", () => {
  it("attention and entropy crops keep the detailed corner that a centre crop cuts away", async () => {
    // 640×360 flat grey with a detailed 80×80 square at (16, 16). For 180×180 the frame is
    // scaled to 320×180 (the square at 8–47) and 180 columns kept; the centre keeps 70–249.
    const url = await serve("cornerDetail");
    const crop = async (position?: Position) => {
      const job = await runJob("videoThumbnail", { url, timestamp: 1, width: 180, height: 180, format: "png", ...(position ? { position } : {}) });
      const { result } = completed(job.state);
      expect([result.width, result.height]).toEqual([180, 180]);
      const bytes = await job.output(result.url);
      expect(await sharp(bytes).metadata()).toMatchObject({ width: 180, height: 180 });
      return bytes;
    };
    expect(await detail(crop())).toBeLessThan(2);
    for (const position of ["attention", "entropy", "top-left"] as const) {
      const bytes = await crop(position);
      expect(await detail(bytes, { left: 12, top: 12, width: 30, height: 30 }), position).toBeGreaterThan(20);
      expect(await detail(bytes, { left: 80, top: 70, width: 90, height: 100 }), position).toBeLessThan(2);
    }
  });

  it("contain pads the frame to the box (transparent in PNG, white in JPEG) where position puts it; fill and inside", async () => {
    const url = await serve("small"); // 320×180
    const run = async (params: Record<string, unknown>) => {
      const job = await runJob("videoThumbnail", { url, timestamp: 1, width: 200, height: 200, ...params });
      const { result } = completed(job.state);
      const bytes = await job.output(result.url);
      const meta = await sharp(bytes).metadata();
      expect([meta.width, meta.height]).toEqual([result.width, result.height]);
      return { bytes, meta, result };
    };
    // 320×180 in 200×200: a 200×113 picture and 87 rows of padding, all below it at "top".
    const png = await run({ fit: "contain", position: "top", format: "png" });
    expect([png.meta.width, png.meta.height, png.meta.hasAlpha]).toEqual([200, 200, true]);
    const alpha = async (y: number) => (await sharp(await region(png.bytes, 0, y, 200, 1)).stats()).channels[3]!.mean;
    expect(await alpha(5)).toBe(255);
    expect(await alpha(150)).toBe(0);
    const jpeg = await run({ fit: "contain" });
    const bottom = await sharp(await region(jpeg.bytes, 0, 190, 200, 10)).stats();
    for (const c of bottom.channels) expect(c.mean).toBeGreaterThan(250);
    expect(await detail(jpeg.bytes, { left: 0, top: 60, width: 200, height: 80 })).toBeGreaterThan(20);

    expect((await run({ fit: "fill" })).result).toMatchObject({ width: 200, height: 200 });
    const inside = (await run({ fit: "inside" })).result;
    expect([inside.width, inside.height]).toEqual([200, 113]);
  });
});

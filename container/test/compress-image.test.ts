import sharp, { type Sharp } from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Position } from "../../src/contract/common.ts";
import { chooseFormat } from "../src/processors/compress-image.ts";
import { encodeHeic, withRotation } from "../../test/support/heic.ts";
import { detail, runJob, startMediaServer, type MediaServer } from "./helpers.ts";

let media: MediaServer;
beforeAll(async () => {
  media = await startMediaServer();
});
afterAll(() => media.close());

/** A photo-like picture: smooth gradients plus noise, so encoders have real work. */
async function photo(width: number, height: number): Promise<Sharp> {
  const noise = await sharp({ create: { width, height, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .blur(2)
    .png()
    .toBuffer();
  return sharp(noise).linear(0.8, 20);
}

function completed(state: { state: string }) {
  if (state.state !== "completed") throw new Error(`expected completed, got ${JSON.stringify(state)}`);
  return state as { state: "completed"; result: Record<string, any>; outputs: { name: string; size: number; contentType: string }[] };
}

describe("compressImage", () => {
  it("turns a JPEG into a smaller WebP within maxWidth, keeping the aspect ratio", async () => {
    const jpeg = await (await photo(1600, 1200)).jpeg({ quality: 95 }).toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/photo.jpg", jpeg, "image/jpeg"), quality: 70, format: "webp", maxWidth: 800 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe("webp");
    expect([meta.width, meta.height]).toEqual([800, 600]);
    expect(result).toMatchObject({ width: 800, height: 600, format: "webp", size: bytes.length, keptOriginal: false });
    expect(result.source).toEqual({ size: jpeg.length, width: 1600, height: 1200, format: "jpeg" });
    expect(result.compressionRatio).toBeCloseTo(bytes.length / jpeg.length, 3);
    expect(result.compressionRatio).toBeLessThan(1);
    expect(outputs).toEqual([{ name: result.url, contentType: "image/webp", size: bytes.length }]);
    expect(job.progress.at(-1)).toBe(100);
    expect(job.steps.map((s) => s.step)).toEqual(["sharp metadata", "sharp encode"]);
  });

  it("applies EXIF orientation 6, so a portrait photo stays portrait, and keeps metadata by default", async () => {
    const jpeg = await (await photo(400, 200)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/rotated.jpg", jpeg), quality: 80 });
    const { result } = completed(job.state);
    const meta = await sharp(await job.output(result.url)).metadata();
    expect([meta.width, meta.height]).toEqual([200, 400]);
    expect(meta.orientation ?? 1).toBe(1);
    expect(meta.exif).toBeDefined();
    expect(result.source).toMatchObject({ width: 200, height: 400 });
  });

  it("strips EXIF when asked", async () => {
    const jpeg = await (await photo(300, 200)).jpeg().withExif({ IFD0: { Artist: "someone" } }).toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/exif.jpg", jpeg), stripMetadata: true });
    const meta = await sharp(await job.output(completed(job.state).result.url)).metadata();
    expect(meta.exif).toBeUndefined();
  });

  it("keeps a PNG's alpha channel and never upscales", async () => {
    const png = await sharp({ create: { width: 120, height: 80, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/alpha.png", png), maxWidth: 1000, maxHeight: 1000 });
    const { result } = completed(job.state);
    const meta = await sharp(await job.output(result.url)).metadata();
    expect(meta.format).toBe("png");
    expect(meta.hasAlpha).toBe(true);
    expect([meta.width, meta.height]).toEqual([120, 80]);
  });

  it("returns the input when re-encoding would make it larger", async () => {
    // A tiny, already well-compressed JPEG: a high-quality re-encode only grows it.
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#336699" } }).jpeg({ quality: 30, mozjpeg: true }).toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/small.jpg", jpeg), quality: 100 });
    const { result } = completed(job.state);
    expect(result.keptOriginal).toBe(true);
    expect(result.compressionRatio).toBe(1);
    expect(Buffer.compare(await job.output(result.url), jpeg)).toBe(0);
  });

  it("fails a 1-byte file with unsupported_media", async () => {
    const job = await runJob("compressImage", { url: media.serve("/one-byte.jpg", Buffer.from([0xff]), "image/jpeg") });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "unsupported_media" } });
  });

  it("fails an HTML page served as image/jpeg with unsupported_media, saying it is HTML", async () => {
    const job = await runJob("compressImage", { url: media.serve("/page.jpg", "<!DOCTYPE html><html><body>Not found</body></html>", "image/jpeg") });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "unsupported_media" } });
    expect((job.state as { error: { message: string } }).error.message).toMatch(/HTML/);
  });

  it("fails a truncated JPEG with corrupt_media", async () => {
    const jpeg = await (await photo(600, 400)).jpeg().toBuffer();
    const job = await runJob("compressImage", { url: media.serve("/truncated.jpg", jpeg.subarray(0, Math.floor(jpeg.length / 2))) });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "corrupt_media" } });
  });

  it("fails a 404 input with input_unreachable naming the status", async () => {
    const job = await runJob("compressImage", { url: media.url("/missing.jpg") });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "input_unreachable", message: expect.stringContaining("404") } });
  });

  describe("a phone's HEIC (HEVC-coded, rotated by irot, EXIF Orientation 6)", () => {
    /** 640×480 sensor pixels, blue with a red top-left corner; upright it is 480×640, red top-right. */
    async function phoneHeic(): Promise<Buffer> {
      const corner = await sharp({ create: { width: 160, height: 120, channels: 3, background: "#ff0000" } }).png().toBuffer();
      const sensor = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#2040c0" } })
        .composite([{ input: corner, left: 0, top: 0 }])
        .jpeg({ quality: 95 })
        .withMetadata({ orientation: 6 })
        .toBuffer();
      return withRotation(await encodeHeic(sensor), 3);
    }

    async function pixel(bytes: Buffer, x: number, y: number) {
      const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      const at = (y * info.width + x) * info.channels;
      return [...data.subarray(at, at + 3)];
    }

    it.each(["jpg", "webp", "avif"] as const)("becomes an upright %s, once rotated, EXIF kept", async (format) => {
      const heic = await phoneHeic();
      const job = await runJob("compressImage", { url: media.serve(`/phone-${format}.heic`, heic, "image/heic"), format });
      const { result } = completed(job.state);
      const bytes = await job.output(result.url);
      const meta = await sharp(bytes).metadata();
      expect(meta.format).toBe({ jpg: "jpeg", webp: "webp", avif: "heif" }[format]);
      expect([meta.width, meta.height]).toEqual([480, 640]);
      expect(meta.orientation ?? 1).toBe(1);
      if (format !== "avif") expect(meta.exif).toBeDefined();
      expect(result).toMatchObject({ width: 480, height: 640, format, keptOriginal: false, source: { format: "heif", width: 480, height: 640, size: heic.length } });
      const [red, , blue] = await pixel(bytes, 470, 10);
      expect(red).toBeGreaterThan(200);
      expect(blue).toBeLessThan(60);
      expect((await pixel(bytes, 10, 10))[2]).toBeGreaterThan(150);
    });

    it("fails a truncated HEIC with corrupt_media", async () => {
      const heic = await phoneHeic();
      const job = await runJob("compressImage", { url: media.serve("/cut.heic", heic.subarray(0, Math.floor(heic.length * 0.6)), "image/heic"), format: "jpg" });
      expect(job.state).toMatchObject({ state: "failed", error: { code: "corrupt_media", message: expect.stringMatching(/HEIC|damaged|truncated/) } });
    });
  });

  it("chooses the output format from the input when none is asked", () => {
    expect(chooseFormat(undefined, "jpeg", false)).toBe("jpg");
    expect(chooseFormat(undefined, "heif", false)).toBe("avif");
    expect(chooseFormat(undefined, "gif", true)).toBe("png");
    expect(chooseFormat(undefined, "tiff", false)).toBe("jpg");
    expect(chooseFormat("avif", "png", true)).toBe("avif");
  });
});

/** The picture's pixel at (x, y), every channel. */
async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + info.channels)];
}

/** 600×300 flat grey, with a 60×60 square of coloured noise at (`left`, `top`): the only thing worth keeping. */
async function detailAt(left: number, top: number): Promise<Buffer> {
  const square = await sharp({ create: { width: 60, height: 60, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 90 } } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 600, height: 300, channels: 3, background: "#808080" } })
    .composite([{ input: square, left, top }])
    .png()
    .toBuffer();
}

describe("compressImage fit and position", () => {
  it("cover gives exactly the box, cropping; fill gives exactly the box, stretching", async () => {
    const url = media.serve("/wide.jpg", await (await photo(400, 200)).jpeg().toBuffer());
    for (const fit of ["cover", "fill"] as const) {
      const job = await runJob("compressImage", { url, fit, maxWidth: 150, maxHeight: 120 });
      const { result } = completed(job.state);
      const meta = await sharp(await job.output(result.url)).metadata();
      expect([fit, meta.width, meta.height]).toEqual([fit, 150, 120]);
      expect(result).toMatchObject({ width: 150, height: 120, format: "jpg" });
    }
    // Unlike inside, the box is what was asked for, so a small input is scaled up to it.
    const job = await runJob("compressImage", { url, fit: "cover", maxWidth: 800, maxHeight: 800 });
    expect(completed(job.state).result).toMatchObject({ width: 800, height: 800 });
  });

  it("inside stays within the box, keeps the aspect ratio and never scales up", async () => {
    const url = media.serve("/wide-inside.jpg", await (await photo(400, 200)).jpeg().toBuffer());
    const small = completed((await runJob("compressImage", { url, fit: "inside", maxWidth: 150, maxHeight: 120 })).state).result;
    expect([small.width, small.height]).toEqual([150, 75]);
    const large = await runJob("compressImage", { url, fit: "inside", maxWidth: 1000, maxHeight: 1000 });
    const meta = await sharp(await large.output(completed(large.state).result.url)).metadata();
    expect([meta.width, meta.height]).toEqual([400, 200]);
  });

  it("contain pads to the box: transparent in PNG, white in JPEG, the background asked for; position places the picture", async () => {
    const url = media.serve("/grey.png", await sharp({ create: { width: 200, height: 100, channels: 3, background: "#808080" } }).png().toBuffer(), "image/png");
    const run = async (params: Record<string, unknown>) => {
      const job = await runJob("compressImage", { url, fit: "contain", maxWidth: 100, maxHeight: 100, quality: 100, ...params });
      const { result } = completed(job.state);
      const bytes = await job.output(result.url);
      const meta = await sharp(bytes).metadata();
      expect([meta.width, meta.height, result.width, result.height]).toEqual([100, 100, 100, 100]);
      return bytes;
    };
    // The 200×100 picture becomes 100×50, centred: 25 rows of padding above and below.
    const png = await run({});
    expect((await pixelAt(png, 50, 5))[3]).toBe(0);
    expect(await pixelAt(png, 50, 50)).toEqual([128, 128, 128, 255]);
    expect((await pixelAt(png, 50, 95))[3]).toBe(0);

    const jpeg = await run({ format: "jpg" });
    for (const c of await pixelAt(jpeg, 50, 5)) expect(c).toBeGreaterThan(250);

    const red = await run({ format: "jpg", background: "#ff0000" });
    const [r, g, b] = await pixelAt(red, 50, 95);
    expect(r).toBeGreaterThan(240);
    expect(Math.max(g!, b!)).toBeLessThan(15);

    // At the top: the picture in the first 50 rows, the padding below.
    const top = await run({ position: "top" });
    expect(await pixelAt(top, 50, 5)).toEqual([128, 128, 128, 255]);
    expect((await pixelAt(top, 50, 75))[3]).toBe(0);
  });

  it.each([
    ["top-left", 10, 10, "left"],
    ["bottom-right", 530, 230, "bottom-right"],
  ] as const)("attention and entropy crops keep the detailed %s corner that a centre crop cuts away", async (corner, left, top, side) => {
    const url = media.serve(`/corner-${corner}.png`, await detailAt(left, top), "image/png");
    const crop = async (position?: Position) => {
      const job = await runJob("compressImage", { url, fit: "cover", maxWidth: 300, maxHeight: 300, quality: 100, ...(position ? { position } : {}) });
      const { result } = completed(job.state);
      expect([result.width, result.height]).toEqual([300, 300]);
      return job.output(result.url);
    };
    // The 600×300 picture is cropped to 300 columns. The centre keeps columns 150–449: flat grey.
    expect(await detail(crop())).toBeLessThan(1);
    // The crop that keeps the square keeps columns 0–299 (top-left) or 300–599 (bottom-right).
    const x = left < 300 ? left : left - 300;
    for (const position of ["attention", "entropy", side] as const) {
      const bytes = await crop(position);
      // The square is there, where it was: noise, and flat grey across the middle beside it.
      expect(await detail(bytes, { left: x, top, width: 60, height: 60 }), position).toBeGreaterThan(40);
      expect(await detail(bytes, { left: 100, top: 80, width: 100, height: 140 }), position).toBeLessThan(1);
    }
  });

  it("refuses a box larger than the service produces with invalid_input, before decoding", async () => {
    const url = media.serve("/for-huge.jpg", await (await photo(40, 20)).jpeg().toBuffer());
    const job = await runJob("compressImage", { url, fit: "fill", maxWidth: 16384, maxHeight: 16384 });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "invalid_input", message: expect.stringContaining("16384×16384") } });
  });
});

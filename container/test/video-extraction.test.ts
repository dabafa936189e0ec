import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { detail, runJob } from "./helpers.ts";
import { completed, failed, ffprobe, isMonotonic, meanLuma, useVideoMedia } from "./video-fixtures.ts";

const BLACK_LUMA = 40;

const { serve, serveBytes, fixtureBytes } = useVideoMedia();

describe("videoExtraction", () => {
  it("extracts the audio and evenly spread frames from one input", async () => {
    const input = await fixtureBytes("small");
    const job = await runJob("videoExtraction", { url: serveBytes("/small.mp4", input), frames: { mode: "count", count: 3, width: 160 } });
    const { result, outputs } = completed(job.state);

    const mp3 = await ffprobe(await job.output(result.audio.url));
    expect(mp3.streams.map((s) => s.codec_name)).toEqual(["mp3"]);
    expect(result.audio).toMatchObject({ url: "audio.mp3", format: "mp3", bitrate: "192kbps" });
    expect(Math.abs(result.audio.duration - 6)).toBeLessThan(2 * (1152 / 44_100));

    // Middles of three 2-second parts: 1, 3 and 5 s (on the 25 fps grid).
    expect(result.frames.map((f: { timestamp: number }) => f.timestamp)).toEqual([1, 3, 5]);
    for (const [i, frame] of result.frames.entries()) {
      const bytes = await job.output(frame.url);
      const meta = await sharp(bytes).metadata();
      expect(frame).toEqual({ url: `frame-0${i + 1}.jpg`, size: bytes.length, width: 160, height: 90, format: "jpg", timestamp: frame.timestamp });
      expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 160, 90]);
    }
    expect(result.source).toEqual({ size: input.length, duration: 6, width: 320, height: 180, format: "mp4", hasAudio: true });
    expect(outputs.map((o) => o.name)).toEqual(["audio.mp3", "frame-01.jpg", "frame-02.jpg", "frame-03.jpg"]);
    expect(isMonotonic(job.progress)).toBe(true);
    expect(parseStoredResult("videoExtraction", result)).toEqual({ ok: true, value: result });
  });

  it("takes frames at percentages, including the start and the last frame", async () => {
    const job = await runJob("videoExtraction", {
      url: await serve("small"),
      audio: false,
      frames: { mode: "percentage", values: [0, 50, 100], format: "png", height: 90 },
    });
    const { result, outputs } = completed(job.state);
    expect(result.audio).toBeNull();
    expect(result.frames.map((f: { timestamp: number }) => f.timestamp)).toEqual([0, 3, 5.96]);
    expect(outputs.map((o) => o.contentType)).toEqual(["image/png", "image/png", "image/png"]);
    for (const frame of result.frames) expect((await sharp(await job.output(frame.url)).metadata()).format).toBe("png");
  });

  it("takes a frame every N seconds, at most 30", async () => {
    const job = await runJob("videoExtraction", { url: await serve("small"), audio: false, frames: { mode: "interval", every: 0.1, width: 32, format: "webp" } });
    const { result } = completed(job.state);
    expect(result.frames).toHaveLength(30);
    expect(result.frames[0].timestamp).toBe(0);
    expect(result.frames[29].timestamp).toBe(2.88); // 2.9 s falls just before a frame boundary at 25 fps
    expect(result.frames[1].url).toBe("frame-02.webp");
  });

  it("takes frames at timestamps, cropped to a box", async () => {
    const job = await runJob("videoExtraction", {
      url: await serve("hd"),
      audio: { quality: "low" },
      frames: { mode: "timestamps", values: [8, 2.5], width: 200, height: 200, quality: 60 },
    });
    const { result } = completed(job.state);
    expect(result.audio.bitrate).toBe("128kbps");
    expect(result.frames.map((f: { timestamp: number; width: number; height: number }) => [f.timestamp, f.width, f.height])).toEqual([
      [8, 200, 200],
      [2.48, 200, 200],
    ]);
    expect(result.source).toMatchObject({ width: 1920, height: 1080, hasAudio: true });
  });

  it("crops every frame by position (entropy keeps the detailed corner) and pads with contain", async () => {
    // cornerDetail: 640×360 flat grey, a detailed 80×80 square at (16, 16); see videoThumbnail's test.
    const url = await serve("cornerDetail");
    const entropy = await runJob("videoExtraction", { url, audio: false, frames: { mode: "count", count: 2, width: 180, height: 180, position: "entropy", format: "png" } });
    const { result } = completed(entropy.state);
    for (const frame of result.frames) {
      expect([frame.width, frame.height]).toEqual([180, 180]);
      const bytes = await entropy.output(frame.url);
      expect(await sharp(bytes).metadata()).toMatchObject({ width: 180, height: 180 });
      expect(await detail(bytes, { left: 12, top: 12, width: 30, height: 30 })).toBeGreaterThan(20);
    }
    const contain = await runJob("videoExtraction", { url, audio: false, frames: { mode: "count", count: 1, width: 100, height: 100, fit: "contain", background: "#0000ff" } });
    const [frame] = completed(contain.state).result.frames;
    expect([frame.width, frame.height, frame.format]).toEqual([100, 100, "jpg"]);
    // 640×360 in 100×100: 100×56 centred, 22 rows of blue above and below.
    const { channels } = await sharp(await sharp(await contain.output(frame.url)).extract({ left: 0, top: 0, width: 100, height: 18 }).toBuffer()).stats();
    expect(channels.map((c) => Math.round(c.mean / 16))).toEqual([0, 0, 16]);
  });

  it("returns audio: null and hasAudio: false for a silent video, which is not a failure", async () => {
    const job = await runJob("videoExtraction", { url: await serve("silentBlackEnds"), frames: { mode: "count", count: 1 } });
    const { result } = completed(job.state);
    expect(result.audio).toBeNull();
    expect(result.source).toMatchObject({ hasAudio: false, duration: 4 });
    expect(result.frames).toHaveLength(1);
  });

  it("skipBlackFrames moves black frames forward to the next lit frame", async () => {
    // Black before 1 s and from 3 s on (30 fps).
    const job = await runJob("videoExtraction", {
      url: await serve("silentBlackEnds"),
      frames: { mode: "timestamps", values: [0, 2, 3.5], skipBlackFrames: true, format: "png" },
    });
    const { result } = completed(job.state);
    const [first, lit, late] = result.frames;
    expect(first.timestamp).toBe(1);
    expect(lit.timestamp).toBe(2);
    // Black to the end: nothing lit ahead, so the frame stays where it was asked for.
    expect(late.timestamp).toBe(3.5);
    expect(await meanLuma(await job.output(first.url))).toBeGreaterThan(BLACK_LUMA);
    expect(await meanLuma(await job.output(lit.url))).toBeGreaterThan(BLACK_LUMA);
  });

  it("without skipBlackFrames, keeps a black frame where it was asked for", async () => {
    const job = await runJob("videoExtraction", { url: await serve("silentBlackEnds"), frames: { mode: "timestamps", values: [0.5] } });
    const { result } = completed(job.state);
    expect(result.frames[0].timestamp).toBe(0.5);
    expect(await meanLuma(await job.output(result.frames[0].url))).toBeLessThan(BLACK_LUMA);
  });

  it("refuses timestamps past the end", async () => {
    const job = await runJob("videoExtraction", { url: await serve("small"), frames: { mode: "timestamps", values: [1, 60] } });
    expect(failed(job.state).error).toMatchObject({ code: "invalid_input", message: expect.stringContaining("60 s is past the end") });
  });

  it("fails a text file named .mp4 with unsupported_media", async () => {
    const job = await runJob("videoExtraction", { url: await serve("text") });
    expect(failed(job.state).error.code).toBe("unsupported_media");
  });
});

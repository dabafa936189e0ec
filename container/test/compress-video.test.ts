import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { jobTypes } from "../../src/contract/registry.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { JobTable } from "../src/jobs.ts";
import { runFfmpeg } from "../src/tools/ffmpeg.ts";
import { runJob, testConfig } from "./helpers.ts";
import { completed, failed, ffprobe, isMonotonic, until, useVideoMedia } from "./video-fixtures.ts";

const exec = promisify(execFile);

const { serve, serveBytes, fixtureBytes } = useVideoMedia();

/**
 * How long the 1080p encode may take on a loaded machine: more than the unit project's 60-s
 * test timeout, so its test has its own, with a minute more for making the fixture first.
 */
const HD_ENCODE_DEADLINE_MS = 120_000;

/** ffmpeg processes whose command line mentions `text`. */
async function processesMentioning(text: string): Promise<string[]> {
  try {
    const { stdout } = await exec("pgrep", ["-a", "-f", text]);
    return stdout.split("\n").filter((line) => line.includes("ffmpeg"));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

describe("compressVideo", () => {
  it("re-encodes to H.264 + AAC in a faststart MP4 of the same size and length, with a measured bitrate", async () => {
    const input = await fixtureBytes("small");
    const job = await runJob("compressVideo", { url: serveBytes("/small.mp4", input) });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    const video = probe.streams.find((s) => s.codec_type === "video")!;
    const audio = probe.streams.find((s) => s.codec_type === "audio")!;
    expect([video.codec_name, video.width, video.height]).toEqual(["h264", 320, 180]);
    expect(audio.codec_name).toBe("aac");
    expect(Math.abs(Number(probe.format.duration) - 6)).toBeLessThan(0.05);
    // faststart: the index (moov) comes before the media data (mdat).
    expect(bytes.indexOf("moov")).toBeLessThan(bytes.indexOf("mdat"));
    expect(result).toMatchObject({ url: "video.mp4", size: bytes.length, width: 320, height: 180, format: "mp4", codec: "h264" });
    expect(result.source).toEqual({ size: input.length, width: 320, height: 180, duration: expect.closeTo(6, 1) });
    expect(result.compressionRatio).toBeCloseTo(bytes.length / input.length, 3);
    expect(result.duration).toBeCloseTo(Number(probe.format.duration), 2);
    const bps = (bytes.length * 8) / Number(probe.format.duration);
    expect(result.bitrate).toMatch(/^\d+(\.\d)?[KM]$/);
    expect(Number(result.bitrate.slice(0, -1)) * (result.bitrate.endsWith("M") ? 1e6 : 1e3)).toBeCloseTo(bps, -5);
    expect(result).not.toHaveProperty("expiresAt");
    expect(outputs).toEqual([{ name: "video.mp4", contentType: "video/mp4", size: bytes.length }]);
    expect(parseStoredResult("compressVideo", result)).toEqual({ ok: true, value: result });
  });

  it("encodes H.265 tagged hvc1", async () => {
    const job = await runJob("compressVideo", { url: await serve("small"), codec: "h265", quality: "low" });
    const { result } = completed(job.state);
    const video = (await ffprobe(await job.output(result.url))).streams.find((s) => s.codec_type === "video")!;
    expect([video.codec_name, video.codec_tag_string]).toEqual(["hevc", "hvc1"]);
    expect(result).toMatchObject({ codec: "h265", format: "mp4" });
  });

  it("encodes VP9 + Opus into WebM by default for vp9", async () => {
    const job = await runJob("compressVideo", { url: await serve("small"), codec: "vp9", quality: "low" });
    const { result, outputs } = completed(job.state);
    const probe = await ffprobe(await job.output(result.url));
    expect(probe.format.format_name).toContain("webm");
    expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["opus", "vp9"]);
    expect(result).toMatchObject({ url: "video.webm", codec: "vp9", format: "webm" });
    expect(outputs[0]!.contentType).toBe("video/webm");
  });

  it("encodes AV1 (SVT-AV1) + AAC into MP4 by default, scaled inside maxWidth × maxHeight, and states it probed", async () => {
    const input = await fixtureBytes("twoSeconds");
    const job = await runJob("compressVideo", { url: serveBytes("/two-seconds.mp4", input), codec: "av1", quality: "low", maxWidth: 320, maxHeight: 320 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.format.format_name).toContain("mp4");
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:av1", "audio:aac"]);
    const video = probe.streams.find((s) => s.codec_type === "video")!;
    expect([video.width, video.height]).toEqual([320, 180]);
    expect(Math.abs(Number(probe.format.duration) - 2)).toBeLessThan(0.1);
    expect(bytes.indexOf("moov")).toBeLessThan(bytes.indexOf("mdat"));
    expect(result).toMatchObject({ url: "video.mp4", size: bytes.length, codec: "av1", format: "mp4", width: 320, height: 180, source: { width: 640, height: 360 } });
    expect(result.duration).toBeCloseTo(Number(probe.format.duration), 2);
    const bps = (bytes.length * 8) / Number(probe.format.duration);
    expect(Number(result.bitrate.slice(0, -1)) * (result.bitrate.endsWith("M") ? 1e6 : 1e3)).toBeCloseTo(bps, -4);
    expect(outputs).toEqual([{ name: "video.mp4", contentType: "video/mp4", size: bytes.length }]);
    expect(parseStoredResult("compressVideo", result)).toEqual({ ok: true, value: result });
  });

  it("encodes AV1 + Opus into WebM when asked", async () => {
    const job = await runJob("compressVideo", { url: await serve("twoSeconds"), codec: "av1", format: "webm", maxWidth: 640, maxHeight: 640 });
    const { result, outputs } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.format.format_name).toContain("webm");
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:av1", "audio:opus"]);
    const video = probe.streams.find((s) => s.codec_type === "video")!;
    expect([video.width, video.height]).toEqual([640, 360]);
    expect(Math.abs(Number(probe.format.duration) - 2)).toBeLessThan(0.1);
    expect(result).toMatchObject({ url: "video.webm", size: bytes.length, codec: "av1", format: "webm", width: 640, height: 360 });
    expect(outputs[0]!.contentType).toBe("video/webm");
  });

  it("holds a target bitrate with AV1 too (SVT-AV1's VBR mode)", async () => {
    // The 6-s clip: on 2 s, SVT-AV1's first keyframe alone puts the average 45 % over.
    const job = await runJob("compressVideo", { url: await serve("small"), codec: "av1", targetBitrate: "300K", stripAudio: true, maxWidth: 320, maxHeight: 320 });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:av1"]);
    const bps = (bytes.length * 8) / Number(probe.format.duration);
    expect(bps).toBeGreaterThan(300_000 * 0.6);
    expect(bps).toBeLessThan(300_000 * 1.4);
  });

  it("refuses an AV1 picture under 64 pixels a side with invalid_input, before encoding", async () => {
    // 640×360 inside 100 × 100 is 100×56: SVT-AV1 would refuse it ("Source Height must be at least 64").
    const job = await runJob("compressVideo", { url: await serve("twoSeconds"), codec: "av1", maxWidth: 100, maxHeight: 100 });
    expect(failed(job.state).error).toMatchObject({
      code: "invalid_input",
      message: "AV1 encodes pictures of at least 64×64 pixels, and this video comes out 100×56 inside maxWidth × maxHeight: give a larger maxWidth and maxHeight, or use codec h264, h265 or vp9",
    });
    // The same box in H.264 is fine.
    const h264 = await runJob("compressVideo", { url: await serve("twoSeconds"), maxWidth: 100, maxHeight: 100 });
    expect(completed(h264.state).result).toMatchObject({ width: 100, height: 56 });
  });

  it("refuses an AV1 encode predicted past AV1_MAX_CPU_S with duration_limit_exceeded, before encoding", async () => {
    // 2 s of 640×360 at 25 fps at high: about 1.8 CPU-s predicted, over a 1-s budget.
    const config = await testConfig({ AV1_MAX_CPU_S: "1" });
    const job = await runJob("compressVideo", { url: await serve("twoSeconds"), codec: "av1", quality: "high", maxWidth: 640, maxHeight: 640 }, { config });
    expect(failed(job.state).error).toMatchObject({
      code: "duration_limit_exceeded",
      message: "AV1 at quality high encodes at most 1.09 s of 640×360 video at 25 fps (about 1 s of CPU time), and this video is 2 s: use a lower quality, a smaller maxWidth and maxHeight, or codec h264, h265 or vp9",
    });
    expect(job.progress.at(-1) ?? 0).toBeLessThan(10);
  });

  it("holds a target bitrate: the video stream lands near it", async () => {
    const job = await runJob("compressVideo", { url: await serve("small"), targetBitrate: "300K", stripAudio: true });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    const probe = await ffprobe(bytes);
    expect(probe.streams.map((s) => s.codec_type)).toEqual(["video"]);
    const bps = (bytes.length * 8) / Number(probe.format.duration);
    expect(bps).toBeGreaterThan(300_000 * 0.6);
    expect(bps).toBeLessThan(300_000 * 1.4);
  });

  it("scales a 1080p video down inside maxWidth, keeping the aspect; progress rises steadily to 100", async () => {
    const job = await runJob("compressVideo", { url: await serve("hd"), maxWidth: 640, quality: "low" }, { deadlineMs: HD_ENCODE_DEADLINE_MS });
    const { result } = completed(job.state);
    const video = (await ffprobe(await job.output(result.url))).streams.find((s) => s.codec_type === "video")!;
    expect([video.width, video.height]).toEqual([640, 360]);
    expect(result).toMatchObject({ width: 640, height: 360, source: { width: 1920, height: 1080 } });
    expect(result.compressionRatio).toBeLessThan(0.2);
    expect(isMonotonic(job.progress)).toBe(true);
    // -progress is reported while the encode runs, not only at the end.
    expect(job.progress.some((p) => p > 10 && p < 95)).toBe(true);
    expect(job.progress.at(-1)).toBe(100);
  }, HD_ENCODE_DEADLINE_MS + 60_000);

  it("re-encodes a WebM input to MP4 and keeps its audio", async () => {
    const job = await runJob("compressVideo", { url: await serve("webm"), maxHeight: 90 });
    const { result } = completed(job.state);
    const probe = await ffprobe(await job.output(result.url));
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:h264", "audio:aac"]);
    expect(result).toMatchObject({ width: 160, height: 90 });
  });

  it("writes no audio track for a silent input", async () => {
    const job = await runJob("compressVideo", { url: await serve("silentBlackEnds") });
    const probe = await ffprobe(await job.output(completed(job.state).result.url));
    expect(probe.streams.map((s) => s.codec_type)).toEqual(["video"]);
  });

  it.each([
    ["truncated", "corrupt_media", /cut short/],
    ["text", "unsupported_media", /not a video or audio file/],
  ] as const)("fails a %s input with %s", async (name, code, message) => {
    const job = await runJob("compressVideo", { url: await serve(name) });
    expect(failed(job.state).error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(failed(job.state).error.message).not.toMatch(/\/tmp|media-jobs/);
  });

  it("fails an audio-only input with no_video_stream", async () => {
    // The MP3 that extractAudio makes is a handy audio-only file.
    const audio = await runJob("extractAudio", { url: await serve("small") });
    const mp3 = await audio.output(completed(audio.state).result.url);
    const job = await runJob("compressVideo", { url: serveBytes("/audio-only.mp3", mp3) });
    expect(failed(job.state).error.code).toBe("no_video_stream");
  });

  it("fails a video over the configured length with duration_limit_exceeded", async () => {
    const config = await testConfig({ MAX_VIDEO_DURATION_S: "5" });
    const job = await runJob("compressVideo", { url: await serve("small") }, { config });
    expect(failed(job.state).error).toMatchObject({ code: "duration_limit_exceeded", message: expect.stringContaining("over the limit of 5 s") });
  });

  it("cancel kills ffmpeg at once and removes the job's files", async () => {
    const config = await testConfig();
    const table = new JobTable(config);
    const id = `cancel_${process.pid}`;
    const jobDir = join(config.workDir, id);
    const params = jobTypes.compressVideo.params.parse({ url: await serve("hd"), codec: "h265", quality: "high" });
    table.start({ id, type: "compressVideo", params });
    await until(async () => (await processesMentioning(jobDir)).length > 0, 30_000, "ffmpeg to start");
    const state = await table.cancel(id);
    expect(state?.state).toBe("cancelled");
    expect(await processesMentioning(jobDir)).toEqual([]);
    await expect(stat(jobDir)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a run past its time limit is killed and reported as processing_timeout", async () => {
    const marker = `timeout-${process.pid}-${Date.now()}`;
    const run = runFfmpeg(["-f", "lavfi", "-i", `testsrc2=s=1280x720:d=600`, "-metadata", `title=${marker}`, "-c:v", "libx264", "-f", "null", "-"], {
      signal: new AbortController().signal,
      timeoutMs: 300,
      task: "encoding the video",
    });
    await expect(run).rejects.toMatchObject({ code: "processing_timeout", message: "encoding the video took longer than its limit of 0.3 s" });
    expect(await processesMentioning(marker)).toEqual([]);
  });

  it("a run stopped by the job's own time limit is a processing_timeout, not a cancel", async () => {
    const run = runFfmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:d=600", "-c:v", "libx264", "-f", "null", "-"], {
      signal: AbortSignal.timeout(300),
      timeoutMs: 60_000,
      task: "encoding the video",
    });
    await expect(run).rejects.toMatchObject({ code: "processing_timeout" });
  });
});

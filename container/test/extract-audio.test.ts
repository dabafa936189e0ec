import { describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { runJob } from "./helpers.ts";
import { completed, failed, ffprobe, isMonotonic, useVideoMedia } from "./video-fixtures.ts";

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

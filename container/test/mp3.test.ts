import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { round3 } from "../src/processors/compress-video.ts";
import { probeMedia } from "../src/tools/ffprobe.ts";
import { parseFrameHeader, readMp3Facts } from "../src/tools/mp3.ts";
import { withTempDir } from "./helpers.ts";

const exec = promisify(execFile);
const signal = new AbortController().signal;

/** ffmpeg's MP3 muxer with extractAudio's encoder options, from a tone of `seconds`. */
async function mp3(path: string, rate: number, channels: number, kbps: number, seconds: number, extra: string[] = []): Promise<void> {
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`,
    ...extra, "-ac", String(channels), "-c:a", "libmp3lame", "-b:a", `${kbps}k`, "-f", "mp3", path,
  ]);
}

describe("readMp3Facts", () => {
  // Every MP3 sample rate (MPEG-1, 2 and 2.5), mono and stereo, bitrates the encoder clamps
  // (320 kbit/s at 22.05 kHz becomes 160), odd lengths.
  const cases = [
    [48_000, 2, 192, 5.6], [44_100, 1, 128, 0.3], [32_000, 2, 320, 3.01], [24_000, 1, 192, 2.2], [22_050, 2, 320, 7.77],
    [16_000, 1, 128, 1.05], [12_000, 2, 128, 4.4], [11_025, 1, 192, 0.9], [8_000, 2, 320, 6.123], [44_100, 2, 192, 61.7],
  ] as const;

  it.each(cases)("reads %i Hz, %i channel(s), %i kbit/s, %f s exactly as ffprobe does", async (rate, channels, kbps, seconds) => {
    await withTempDir(async (dir) => {
      const path = join(dir, "out.mp3");
      await mp3(path, rate, channels, kbps, seconds);
      const probe = await probeMedia(path, signal);
      const facts = await readMp3Facts(path);
      expect(facts).toEqual({ duration: probe.duration, startTime: probe.audio!.startTime, bitRate: probe.audio!.bitRate });
      expect(round3(facts!.duration - facts!.startTime)).toBe(round3(probe.duration - probe.audio!.startTime));
    });
  });

  it("skips an ID3 tag longer than the bytes it reads at once", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "tagged.mp3");
      await mp3(path, 44_100, 2, 192, 2.5, ["-metadata", `comment=${"a long comment ".repeat(400)}`]);
      const probe = await probeMedia(path, signal);
      expect(await readMp3Facts(path)).toEqual({ duration: probe.duration, startTime: probe.audio!.startTime, bitRate: probe.audio!.bitRate });
    });
  });

  it("gives null for an MP3 without an Info tag, and for what is not an MP3", async () => {
    await withTempDir(async (dir) => {
      await mp3(join(dir, "bare.mp3"), 44_100, 2, 192, 1, ["-write_xing", "0"]);
      expect(await readMp3Facts(join(dir, "bare.mp3"))).toBeNull();
      await writeFile(join(dir, "text.mp3"), "not audio at all");
      expect(await readMp3Facts(join(dir, "text.mp3"))).toBeNull();
    });
  });

  it("parses Layer III frame headers only", () => {
    expect(parseFrameHeader(Buffer.from([0xff, 0xfb, 0xb4, 0xc0]))).toEqual({ lsf: 0, mono: true, sampleRate: 48_000, bitRate: 192_000, size: 576 });
    expect(parseFrameHeader(Buffer.from([0xff, 0xf3, 0xc0, 0x44]))).toMatchObject({ lsf: 1, mono: false, sampleRate: 22_050, bitRate: 128_000 });
    // Layer II, a free-format bitrate, a reserved sample rate.
    expect(parseFrameHeader(Buffer.from([0xff, 0xfd, 0xb4, 0xc0]))).toBeNull();
    expect(parseFrameHeader(Buffer.from([0xff, 0xfb, 0x04, 0xc0]))).toBeNull();
    expect(parseFrameHeader(Buffer.from([0xff, 0xfb, 0xbc, 0xc0]))).toBeNull();
  });
});

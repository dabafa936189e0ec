// videoClip on a 12 s 640×360 H.264/AAC input with a keyframe every 2 s: a frame-accurate
// clip begins on the very frame asked for and lasts what was asked, within a frame; a fast
// clip copies from the keyframe before start and says so; bad requests fail with their code.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { videoClipParams } from "../../src/contract/jobs/video-clip.ts";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { runJob, startMediaServer, testConfig, type MediaServer } from "./helpers.ts";
import { completed, failed, ffprobe } from "./video-fixtures.ts";

const exec = promisify(execFile);
const FRAME = 1 / 25;

let media: MediaServer;
let dir: string;
let input: string;
let url: string;

beforeAll(async () => {
  media = await startMediaServer();
  dir = await mkdtemp(join(tmpdir(), "media-jobs-clip-"));
  input = join(dir, "gop2s.mp4");
  // A keyframe every 50 frames (2 s) and nowhere else, as a camera writes a fixed GOP.
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=12", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=12",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-c:a", "aac", "-b:a", "96k", "-shortest", input,
  ]);
  url = media.serve("/gop2s.mp4", await readFile(input), "video/mp4");
}, 60_000);

afterAll(async () => {
  await media.close();
  await rm(dir, { recursive: true, force: true });
});

/** The decoded frame at `time` of `file` (an accurate seek), as raw grey pixels. */
async function frameAt(file: string, time: number): Promise<Buffer> {
  const png = join(dir, `frame-${Math.random().toString(36).slice(2)}.png`);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-ss", String(time), "-i", file, "-frames:v", "1", png]);
  return sharp(png).greyscale().raw().toBuffer();
}

function difference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** Which of the input's frames near `around` the clip's first frame is: the offset in frames of the closest. */
async function firstFrameOffset(clip: string, around: number): Promise<number> {
  const first = await frameAt(clip, 0);
  const offsets = [-2, -1, 0, 1, 2];
  const diffs = await Promise.all(offsets.map(async (k) => difference(first, await frameAt(input, around + k * FRAME))));
  return offsets[diffs.indexOf(Math.min(...diffs))]!;
}

async function videoFrames(file: string): Promise<number> {
  const { stdout } = await exec("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file]);
  return Number(stdout.trim());
}

async function saved(job: Awaited<ReturnType<typeof runJob>>, name: string): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}-${name}`);
  await writeFile(file, await job.output(name));
  return file;
}

describe("videoClip", () => {
  it("cuts frame-accurately by default: the clip begins on the frame at start and lasts end − start, within a frame, with its audio", async () => {
    const config = await testConfig();
    const job = await runJob("videoClip", { url, start: 3.2, end: 7.6 }, { config });
    const { result, outputs } = completed(job.state);
    const clip = await saved(job, "clip.mp4");
    const probe = await ffprobe(clip);
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:h264", "audio:aac"]);
    expect(Math.abs(Number(probe.format.duration) - 4.4)).toBeLessThanOrEqual(FRAME + 0.025);
    expect(await videoFrames(clip)).toBe(110);
    expect(await firstFrameOffset(clip, 3.2)).toBe(0);
    expect(result).toMatchObject({ url: "clip.mp4", start: 3.2, end: 7.6, width: 640, height: 360, reencoded: true, source: { width: 640, height: 360, duration: 12 } });
    expect(Math.abs(result.duration - 4.4)).toBeLessThanOrEqual(FRAME + 0.025);
    expect(outputs).toEqual([{ name: "clip.mp4", contentType: "video/mp4", size: result.size }]);
    expect(parseStoredResult("videoClip", result)).toEqual({ ok: true, value: result });
    expect(await processesMentioning(config.workDir)).toEqual([]);
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("with fast, copies the streams from the keyframe at or before start, no re-encode, and says where it began", async () => {
    const job = await runJob("videoClip", { url, start: 3.2, end: 7.6, fast: true });
    const { result } = completed(job.state);
    const clip = await saved(job, "clip.mp4");
    // The keyframe before 3.2 s is the one at 2 s.
    expect(result).toMatchObject({ start: 2, reencoded: false, width: 640, height: 360 });
    expect(await firstFrameOffset(clip, 2)).toBe(0);
    const probe = await ffprobe(clip);
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["video:h264", "audio:aac"]);
    // Copied: the encoder's own settings are still in the stream, no libx264 ran here.
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffprobe", "ffmpeg", "ffprobe"]);
    expect(Math.abs(Number(probe.format.duration) - 5.6)).toBeLessThanOrEqual(FRAME + 0.025);
    expect(result.end).toBeCloseTo(7.6, 1);
  });

  it("runs to the input's end when end is left out or lies past it", async () => {
    for (const params of [{ start: 10 }, { start: 10, end: 30 }]) {
      const job = await runJob("videoClip", { url, ...params });
      const { result } = completed(job.state);
      expect(result).toMatchObject({ start: 10, end: 12 });
      expect(await videoFrames(await saved(job, "clip.mp4"))).toBe(50);
    }
  });

  it("fails a start at or past the input's end with invalid_input, saying how long the input is", async () => {
    const job = await runJob("videoClip", { url, start: 12.5 });
    expect(failed(job.state).error).toEqual({ code: "invalid_input", message: expect.stringMatching(/start \(12\.5 s\) is at or past the end of the input, which is 12(\.0)? s long/) });
  });

  it("refuses an end not after start, naming the field", () => {
    const parsed = videoClipParams.safeParse({ url: "https://example.com/a.mp4", start: 5, end: 5 });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([["end", "must be after start"]]);
    expect(videoClipParams.safeParse({ url: "https://example.com/a.mp4", start: -1 }).error!.issues[0]!.path).toEqual(["start"]);
  });

  it("a playlist sent as a video, naming a local file, is refused unread", async () => {
    const config = await testConfig();
    const secret = join(dir, "secret.mp4");
    await writeFile(secret, await readFile(input));
    const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:12\n#EXTINF:12,\nfile://${secret}\n#EXT-X-ENDLIST\n`;
    const job = await runJob("videoClip", { url: media.serve("/clip.mp4", Buffer.from(playlist), "video/mp4"), start: 1, fast: true }, { config });
    expect(failed(job.state).error.code).toBe("unsupported_media");
    expect(await processesMentioning(config.workDir)).toEqual([]);
    await rm(config.workDir, { recursive: true, force: true });
  });
});

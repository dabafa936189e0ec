// A thumbnail of a video written as phones write it (29.97 fps, B-frames, a keyframe every
// 34 frames, its index at the start or at the end) reads a small part of the input from its
// origin, counted there, and is the frame on screen at the time asked for: the same pixels
// as that frame decoded from the start without any seek.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRangeServer, type RangeServer } from "../../test/support/range-server.ts";
import { readyKinds } from "../src/processors/index.ts";
import { startReadyTools, stopReadyTools } from "../src/tools/ready-tools.ts";
import { runJob, testConfig } from "./helpers.ts";
import { completed } from "./video-fixtures.ts";

const exec = promisify(execFile);
const FPS = 30000 / 1001;

let dir: string;
let origin: RangeServer;
const file = (name: "start" | "end") => join(dir, `phone-${name}.mp4`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "media-jobs-thumbnail-reads-"));
  origin = await startRangeServer();
  // 40 s of 640×360 with grain at 3 Mbit/s (about 15 MB): High profile, two B-frames, a keyframe every 34 frames (1.13 s); AAC beside it.
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30000/1001:d=40,noise=alls=20:allf=t", "-f", "lavfi", "-i", "sine=d=40",
    "-c:v", "libx264", "-preset", "superfast", "-profile:v", "high", "-pix_fmt", "yuv420p", "-bf", "2", "-g", "34", "-keyint_min", "34", "-sc_threshold", "0",
    "-b:v", "3M", "-maxrate", "3M", "-bufsize", "3M", "-c:a", "aac", "-shortest", file("end"),
  ]);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", file("end"), "-c", "copy", "-movflags", "+faststart", file("start")]);
  await startReadyTools(2, join(dir, "ready"), readyKinds);
}, 180_000);

afterAll(async () => {
  stopReadyTools();
  await origin?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Frame `n` (from 0, in display order) as raw RGB, decoded from the start: no seek involved. */
async function decodedFrame(path: string, n: number): Promise<Buffer> {
  const output = join(dir, `frame-${n}-${Math.random().toString(36).slice(2)}.raw`);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", path, "-map", "0:v:0", "-vf", `select=eq(n\\,${n})`, "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", output]);
  return readFile(output);
}

describe("a thumbnail of a phone's video at a time", () => {
  it.each([
    ["start", 30.5],
    ["end", 30.5],
    ["start", 7.2],
    ["end", 21.02],
  ] as const)("index at the %s, at %s s: the frame on screen then, and at most 15 %% of the file fetched", async (index, at) => {
    // A first read of 256 KiB (production's is 2 MiB, for inputs of hundreds of MB): it holds this index when it is at the start.
    const config = await testConfig({ INPUT_FIRST_READ_BYTES: String(256 * 1024) });
    origin.reset();
    const url = origin.serve(`/phone-${index}-${Math.random().toString(36).slice(2)}.mp4`, file(index));
    const job = await runJob("videoThumbnail", { url, timestamp: at, format: "png" }, { config });
    const { result } = completed(job.state);
    const n = Math.floor(at * FPS + 1e-6);
    expect(result.timestamp).toBe(Math.round((n / FPS) * 1000) / 1000);
    const pixels = await sharp(await job.output(result.url)).raw().toBuffer();
    expect(pixels.equals(await decodedFrame(file(index), n))).toBe(true);
    const size = (await stat(file(index))).size;
    expect(size).toBeGreaterThan(12e6);
    expect(origin.bytesServed / size).toBeLessThanOrEqual(0.15);
  }, 60_000);
});

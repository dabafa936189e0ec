// Processes started before a job (tools/ready-tools.ts): a thumbnail taken with a ready
// probe and a ready grab is the frame the one-command-line grab gives, pixel for pixel, on
// inputs whose timing is not plain; a picture ffmpeg turns, or an input the probe refuses,
// leaves the ready grab unused; the probe reports what a probe of its own reports; and no
// process is left behind, whether the job ends, is cancelled, or the tools are stopped.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobTypes } from "../../src/contract/registry.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { startRangeServer, type RangeServer } from "../../test/support/range-server.ts";
import { InputSource } from "../src/input-source.ts";
import { JobTable } from "../src/jobs.ts";
import { readyKinds } from "../src/processors/index.ts";
import { runFfmpeg } from "../src/tools/ffmpeg.ts";
import { parseProbe, probeMedia } from "../src/tools/ffprobe.ts";
import { frameBox, frameTimeAt, grabArgs, readyGrabGraph } from "../src/tools/frames.ts";
import { readyCounts, startReadyTools, stopReadyTools, takeReadyGrab } from "../src/tools/ready-tools.ts";
import { runJob, testConfig } from "./helpers.ts";
import { completed, failed, until } from "./video-fixtures.ts";

const exec = promisify(execFile);
const limits = { signal: new AbortController().signal, timeoutMs: 60_000, task: "test" };
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

const recipes = {
  /** 25 fps, a keyframe every 10 frames, AAC beside it. */
  video: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-f", "lavfi", "-i", "sine=d=6", ...x264, "-g", "10", "-c:a", "aac", "-shortest", "-f", "mp4"],
  /** B-frames (x264's default of 3): frames decoded out of their order, a keyframe every 12. */
  bframes: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=24:d=5", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "12", "-f", "mp4"],
  /** NTSC's 29.97 fps with its index at the end. */
  ntsc: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30000/1001:d=4", ...x264, "-f", "mp4"],
  /** MPEG-TS, its times from 1.4 s and a keyframe every 10 frames: `-ss` lands on frames the decoder cannot start from. */
  ts: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4", ...x264, "-g", "10", "-f", "mpegts"],
  /** The same frames in Matroska, its times from 0. */
  mkv: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4", ...x264, "-g", "10", "-f", "matroska"],
  /** WebM, VP8. */
  webm: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3", "-c:v", "libvpx", "-b:v", "500k", "-g", "25", "-f", "webm"],
  /** 10 s with its index at the start, for a grab near the end. */
  long: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=10", ...x264, "-g", "25", "-movflags", "+faststart", "-f", "mp4"],
  /** Anamorphic: stored 240×180, shown 320×180 (SAR 4:3). */
  anamorphic: ["-f", "lavfi", "-i", "testsrc2=s=240x180:r=25:d=3", ...x264, "-vf", "setsar=4/3", "-f", "mp4"],
} as const;
/** Also `rotated`: a phone's portrait video, `long` stored landscape and turned 90° by the display matrix (a remux sets it). */
type Name = keyof typeof recipes | "rotated";

let dir: string;
let origin: RangeServer;
let readyDir: string;
const file = (name: Name) => join(dir, name);
const url = (name: Name) => origin.serve(`/${name}-${Math.random().toString(36).slice(2)}`, file(name));
/** Raw pixels of an image, to compare frames whatever their encoding. */
const pixels = (path: string | Buffer) => sharp(path).raw().toBuffer();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "media-jobs-ready-"));
  readyDir = join(dir, "ready");
  origin = await startRangeServer();
  await Promise.all(Object.entries(recipes).map(([name, args]) => exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, join(dir, name)])));
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", file("long"), "-t", "3", "-c", "copy", "-metadata:s:v:0", "rotate=90", "-f", "mp4", file("rotated")]);
  await startReadyTools(2, readyDir, readyKinds);
});

afterAll(async () => {
  stopReadyTools();
  await origin?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Waits until both kinds have `count` processes waiting again (a taken one is replaced shortly after it ends). */
const refilled = (count = 2) => until(() => readyCounts().probes >= count && readyCounts().grabs >= count, 20_000, "ready processes replaced");

/** The raw pixels grabArgs writes for the frame at `requested` (tools/frames.ts framePixels), with its time. */
async function reference(name: Name, requested: number, size: { width?: number; height?: number } = {}) {
  const probe = await probeMedia(file(name), limits.signal);
  const time = frameTimeAt(requested, probe);
  const output = join(dir, `${name}-${requested}-${Math.random().toString(36).slice(2)}.raw`);
  await runFfmpeg(grabArgs(file(name), probe, time, frameBox(probe.video!, size), output), limits);
  return { output, time, probe };
}

describe("a thumbnail from a ready probe and a ready grab", () => {
  it.each([
    ["video", 0, {}],
    ["video", 2.01, {}],
    ["video", 3.93, { width: 100, height: 100 }],
    ["video", 6, { width: 64 }],
    ["bframes", 1.3, {}],
    ["bframes", 2.51, { height: 90 }],
    ["ntsc", 2.5, {}],
    ["ntsc", 4, {}],
    ["mkv", 0.98, {}],
    ["mkv", 2.18, {}],
    ["webm", 1.7, {}],
    ["anamorphic", 1.1, { width: 160 }],
  ] as const)("%s at %s s %j is grabArgs' frame, pixel for pixel, and no process starts for it", async (name, requested, size) => {
    await refilled();
    const before = readyCounts().taken;
    const job = await runJob("videoThumbnail", { url: url(name), timestamp: requested, format: "png", ...size });
    const { result } = completed(job.state);
    const expected = await reference(name, requested, size);
    expect(result.timestamp).toBe(Math.round(expected.time * 1000) / 1000);
    expect((await pixels(await job.output(result.url))).equals(await readFile(expected.output))).toBe(true);
    // Both tools were ready ones: the job started neither.
    expect(readyCounts().taken).toEqual({ probes: before.probes + 1, grabs: before.grabs + 1 });
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "sharp encode"]);
  });

  it.each([
    ["video", 2.01, {}],
    ["bframes", 1.3, { height: 90 }],
    ["ntsc", 2.5, { width: 100, height: 100 }],
    ["mkv", 0.98, {}],
  ] as const)("%s at %s s %j as a plain JPEG at the quality the grab writes is its JPEG output: grabArgs' JPEG byte for byte, sharp not run", async (name, requested, size) => {
    await refilled();
    const before = readyCounts().taken;
    const job = await runJob("videoThumbnail", { url: url(name), timestamp: requested, ...size });
    const { result } = completed(job.state);
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg"]);
    expect(readyCounts().taken).toEqual({ probes: before.probes + 1, grabs: before.grabs + 1 });
    const probe = await probeMedia(file(name), limits.signal);
    const expected = join(dir, `${name}-${requested}-${Math.random().toString(36).slice(2)}.jpg`);
    await runFfmpeg(grabArgs(file(name), probe, frameTimeAt(requested, probe), frameBox(probe.video!, size), expected, readyKinds.grabJpegQuality), limits);
    expect((await job.output(result.url)).equals(await readFile(expected))).toBe(true);
  });

  it("a JPEG at another quality: the ready grab's raw pixels go to sharp, and the grabs started after it write that quality", async () => {
    await refilled();
    const job = await runJob("videoThumbnail", { url: url("video"), timestamp: 1, quality: 60 });
    completed(job.state);
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "sharp encode"]);
    await refilled();
    // The one it took was replaced by one writing 60; the other still writes the first quality.
    const waiting = [takeReadyGrab()!, takeReadyGrab()!];
    expect(waiting.map((ready) => ready.jpeg?.quality).sort()).toEqual([60, readyKinds.grabJpegQuality]);
    for (const ready of waiting) ready.release();
  });

  it.each([0.98, 1.78])("MPEG-TS at %s s, whose seeks need no keyframe, is grabbed by grabArgs after the probe, the ready grab (opened beside the probe) killed and replaced", async (requested) => {
    await refilled();
    const before = readyCounts().taken;
    const probe = await probeMedia(file("ts"), limits.signal);
    expect(probe).toMatchObject({ format: "mpegts", startTime: 1.4 });
    expect(readyGrabGraph(probe, requested, frameTimeAt(requested, probe), frameBox(probe.video!))).toBeNull();
    const job = await runJob("videoThumbnail", { url: url("ts"), timestamp: requested, format: "png" });
    const { result } = completed(job.state);
    expect((await pixels(await job.output(result.url))).equals(await readFile((await reference("ts", requested)).output))).toBe(true);
    expect(readyCounts().taken).toEqual({ probes: before.probes + 1, grabs: before.grabs });
    await refilled();
  });

  it("a turned picture is grabbed by grabArgs after the probe (ffmpeg turns it; movie would not), the ready grab killed and replaced", async () => {
    await refilled();
    const before = readyCounts().taken;
    const probe = await probeMedia(file("rotated"), limits.signal);
    expect(probe.video).toMatchObject({ width: 180, height: 320, transformed: true });
    expect(readyGrabGraph(probe, 1, frameTimeAt(1, probe), frameBox(probe.video!))).toBeNull();
    const job = await runJob("videoThumbnail", { url: url("rotated"), timestamp: 1, format: "png" });
    const { result } = completed(job.state);
    expect([result.width, result.height]).toEqual([180, 320]);
    expect((await pixels(await job.output(result.url))).equals(await readFile((await reference("rotated", 1)).output))).toBe(true);
    expect(readyCounts().taken.grabs).toBe(before.grabs);
    await refilled();
  });

  it("an input the probe refuses: the probe's verdict, the ready grab (opened beside the probe) killed unused", async () => {
    await refilled();
    const before = readyCounts().taken;
    const text = join(dir, "notes.txt");
    await exec("sh", ["-c", `printf 'hello, not a video' > ${text}`]);
    const job = await runJob("videoThumbnail", { url: origin.serve("/notes", text), timestamp: 1, format: "jpg" });
    expect(failed(job.state).error.code).toBe("unsupported_media");
    expect(readyCounts().taken).toEqual({ probes: before.probes + 1, grabs: before.grabs });
    await refilled();
  });

  it("a job cancelled while its ready grab runs: cancelled, and the process ended", async () => {
    await refilled();
    const before = readyCounts().taken.grabs;
    // Small reads, and an origin that sends nothing past the first half of the file: the
    // probe (header, index, first frames) completes, the grab at 9 s waits on its bytes.
    const table = new JobTable(await testConfig({ INPUT_FIRST_READ_BYTES: "65536", INPUT_MIN_WINDOW_BYTES: "65536" }));
    const size = (await stat(file("long"))).size;
    const stalled = origin.serve("/long-stalled", file("long"), { kind: "stall-past", offset: Math.floor(size / 2) });
    table.start({ id: "ready-cancel", type: "videoThumbnail", params: jobTypes.videoThumbnail.params.parse({ url: stalled, timestamp: 9, format: "png" }) });
    await until(() => readyCounts().taken.grabs > before, 20_000, "the ready grab taken");
    expect(table.get("ready-cancel")!.state).toBe("running");
    table.cancel("ready-cancel");
    await until(() => table.get("ready-cancel")!.state !== "running", 20_000, "the job ended");
    expect(table.get("ready-cancel")!.state).toBe("cancelled");
    // The ready grabs' output paths name the ready directory: only the waiting ones are left.
    await until(async () => (await processesMentioning(readyDir)).length === readyCounts().grabs, 20_000, "the taken grab ended");
  });
});

describe("the ready set", () => {
  it("writes its JPEG at videoThumbnail's default quality until a job asks for another", () => {
    expect(readyKinds.grabJpegQuality).toBe(jobTypes.videoThumbnail.params.parse({ url: "https://media.example/v.mp4" }).quality);
  });

  it("takes a process once: given back twice, it waits once", async () => {
    await refilled();
    const ready = takeReadyGrab()!;
    expect(readyCounts().grabs).toBe(1);
    ready.release();
    ready.release();
    expect(readyCounts().grabs).toBe(2);
  });

  it("a picture mirrored by its display matrix (no turn) counts as transformed, as ffmpeg's vflip says", () => {
    const stream = (displaymatrix: string, rotation: number) => ({
      streams: [{ index: 0, codec_type: "video", codec_name: "h264", width: 320, height: 180, avg_frame_rate: "25/1", side_data_list: [{ side_data_type: "Display Matrix", displaymatrix, rotation }] }],
      format: { duration: "3", format_name: "mov,mp4,m4a,3gp,3g2,mj2", size: "1000" },
    });
    const identity = "\n00000000:        65536           0           0\n00000001:            0       65536           0\n00000002:            0           0  1073741824\n";
    const mirrored = "\n00000000:        65536           0           0\n00000001:            0      -65536           0\n00000002:            0           0  1073741824\n";
    expect(parseProbe(stream(identity, 0))!.video!.transformed).toBeUndefined();
    expect(parseProbe(stream(mirrored, 0))!.video).toMatchObject({ width: 320, height: 180, transformed: true });
  });
});

describe("a ready probe", () => {
  it("reports what a probe started by its job reports, reading the same input", async () => {
    const config = await testConfig();
    for (const name of ["video", "ts", "mkv", "webm", "rotated"] as const) {
      await refilled();
      const source = await InputSource.open(url(name), join(config.workDir, `${name}.input`), { limits: config, signal: limits.signal });
      try {
        const before = readyCounts().taken.probes;
        const ready = await probeMedia(source.url, limits.signal, (bytes) => source.head(bytes), (req, res) => source.answer(req, res));
        expect(readyCounts().taken.probes).toBe(before + 1);
        expect(ready).toEqual(await probeMedia(source.url, limits.signal));
      } finally {
        await source.close();
      }
    }
  });

  it("a stopped set of ready tools leaves no process behind, and probes start their own", async () => {
    await refilled();
    expect((await processesMentioning(readyDir)).length).toBe(2);
    stopReadyTools();
    await until(async () => (await processesMentioning(readyDir)).length === 0, 20_000, "ready processes ended");
    expect(readyCounts()).toMatchObject({ probes: 0, grabs: 0 });
    const job = await runJob("videoThumbnail", { url: url("video"), timestamp: 1, format: "png" });
    completed(job.state);
  });

  it("tools that cannot start (none on the PATH) leave jobs to start their own, and the processor running", async () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      await startReadyTools(1, readyDir, readyKinds);
      await until(() => readyCounts().probes === 0 && readyCounts().grabs === 0, 20_000, "the failed starts noticed");
    } finally {
      process.env.PATH = path;
      stopReadyTools();
    }
    const job = await runJob("videoThumbnail", { url: url("video"), timestamp: 1, format: "png" });
    completed(job.state);
  });
});

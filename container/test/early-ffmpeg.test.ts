// ffmpeg started beside the input's ffprobe (tools/ffmpeg.ts EarlyFfmpeg): the same bytes as
// the one-command-line runs it replaces, the probe's verdicts unchanged, and no process
// left behind whichever way the job ends.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobTypes } from "../../src/contract/registry.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { startRangeServer, type RangeServer } from "../../test/support/range-server.ts";
import { JobCancelled } from "../src/errors.ts";
import { JobTable } from "../src/jobs.ts";
import { buildArgs as mp3Args, earlyArgs as earlyMp3Args, earlyGraph as mp3Graph } from "../src/processors/extract-audio.ts";
import { EarlyFfmpeg, runFfmpeg } from "../src/tools/ffmpeg.ts";
import { probeMedia } from "../src/tools/ffprobe.ts";
import { earlyGrabArgs, earlyGrabGraph, frameBox, frameTimeAt, grabArgs } from "../src/tools/frames.ts";
import { runJob, startMediaServer, testConfig, type MediaServer } from "./helpers.ts";
import { completed, failed, ffprobe, until } from "./video-fixtures.ts";

const exec = promisify(execFile);
const limits = { signal: new AbortController().signal, timeoutMs: 60_000, task: "test" };

const recipes = {
  /** 5.1 AAC, 3 s, with tags on the file and on the stream (the MP3's ID3 tags come from the file's, as before). */
  surround: [
    "-f", "lavfi", "-i", "sine=frequency=440:duration=3,aformat=channel_layouts=5.1", "-c:a", "aac",
    "-metadata", "title=Concert", "-metadata:s:a:0", "language=fra", "-f", "mp4",
  ],
  /** Mono AAC, 3 s. */
  mono: ["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-ac", "1", "-c:a", "aac", "-f", "mp4"],
  /** Two audio tracks, the second (880 Hz) marked default: the probe's main stream is not the first. */
  twoTracks: [
    "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-f", "lavfi", "-i", "sine=frequency=880:duration=3",
    "-map", "0", "-map", "1", "-c:a", "aac", "-disposition:a:0", "0", "-disposition:a:1", "default", "-f", "matroska",
  ],
  /** NTSC's 29.97 fps, 4 s: frame starts that are not round numbers. */
  ntsc: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30000/1001:d=4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4"],
  /** 2 fps, 4 s, no audio: slower than an early grab's margin covers. */
  slow: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=2:d=4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4"],
  /** 25 fps, 6 s, no audio, a keyframe every 10 frames. */
  video: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "10", "-f", "mp4"],
} as const;

let dir: string;
let media: MediaServer;
/** An origin that can hold an input back (test/support/range-server.ts). */
let held: RangeServer;
const file = (name: keyof typeof recipes) => join(dir, name);
const url = async (name: keyof typeof recipes) => media.serve(`/${name}`, await readFile(file(name)));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "media-jobs-early-"));
  media = await startMediaServer();
  held = await startRangeServer();
  for (const [name, args] of Object.entries(recipes)) await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, join(dir, name)]);
});

afterAll(async () => {
  await media?.close();
  await held?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The bytes of the MP3 that buildArgs' one command line writes for `input`. */
async function referenceMp3(input: string): Promise<Buffer> {
  const output = join(dir, `reference-${Date.now()}.mp3`);
  await runFfmpeg(mp3Args({ quality: "medium" }, await probeMedia(input, limits.signal), { input, output }), limits);
  return readFile(output);
}

/** Raw pixels of a PNG, to compare frames whatever their encoding. */
const pixels = async (path: string) => sharp(path).raw().toBuffer();

describe("extractAudio with ffmpeg started beside the probe", () => {
  it("mixes 5.1 down to a stereo MP3, byte for byte what -ac 2 writes", async () => {
    const job = await runJob("extractAudio", { url: await url("surround") });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect((await ffprobe(bytes)).streams.map((s) => [s.codec_name, s.channels])).toEqual([["mp3", 2]]);
    expect(bytes.equals(await referenceMp3(file("surround")))).toBe(true);
    // ffmpeg started first and ran beside the probe; it ended after it.
    const [probe, ffmpeg] = job.steps;
    expect([probe!.step, ffmpeg!.step]).toEqual(["ffprobe", "ffmpeg"]);
    expect(ffmpeg!.atMs).toBeLessThanOrEqual(probe!.atMs);
  });

  it("keeps a mono input mono, byte for byte the one-command-line MP3", async () => {
    const job = await runJob("extractAudio", { url: await url("mono") });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect((await ffprobe(bytes)).streams.map((s) => s.channels)).toEqual([1]);
    expect(bytes.equals(await referenceMp3(file("mono")))).toBe(true);
  });

  it("encodes the stream the probe chose (the default one), not the first", async () => {
    const job = await runJob("extractAudio", { url: await url("twoTracks") });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    const first = join(dir, "first-track.mp3");
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", file("twoTracks"), "-map", "0:a:0", "-c:a", "libmp3lame", "-b:a", "192k", first]);
    expect(bytes.equals(await referenceMp3(file("twoTracks")))).toBe(true);
    expect(bytes.equals(await readFile(first))).toBe(false);
  });

  it("leaves the stream and the channel mix to the graph, built from the probe", async () => {
    const args = earlyMp3Args("medium", { input: file("mono"), output: "/out.mp3" });
    expect(args.filter((a) => /^0:/.test(a) || a === "-ac")).toEqual([]);
    const two = await probeMedia(file("twoTracks"), limits.signal);
    expect(mp3Graph(two)).toBe("[0:1]anull[out]");
    expect(mp3Graph(await probeMedia(file("surround"), limits.signal))).toBe("[0:0]aformat=channel_layouts=stereo[out]");
  });
});

describe("a frame grabbed by ffmpeg started beside the probe", () => {
  it.each([
    ["video", 0, {}],
    ["video", 2.01, {}],
    ["video", 3.93, { width: 100, height: 100 }],
    ["video", 6, { width: 64 }],
    ["ntsc", 1, {}],
    ["ntsc", 2.5, { height: 90 }],
    ["ntsc", 4, {}],
  ] as const)("%s at %s s %j is grabArgs' frame, pixel for pixel", async (name, requested, size) => {
    const input = file(name);
    const probe = await probeMedia(input, limits.signal);
    const time = frameTimeAt(requested, probe);
    const box = frameBox(probe.video!, size as { width?: number; height?: number });
    const reference = join(dir, `grab-${name}-${requested}-ref.raw`);
    await runFfmpeg(grabArgs(input, probe, time, box, reference), limits);
    const early = join(dir, `grab-${name}-${requested}-early.raw`);
    const graph = earlyGrabGraph(probe, requested, time, box);
    expect(graph).not.toBeNull();
    await new EarlyFfmpeg(earlyGrabArgs(input, requested, early), { signal: limits.signal, waitLimitMs: 60_000, graph: "output" }).run(graph!, limits);
    expect((await readFile(early)).equals(await readFile(reference))).toBe(true);
  });

  it("under 6 fps the frame comes from a grab after the probe, the early one killed unused", async () => {
    const probe = await probeMedia(file("slow"), limits.signal);
    expect(earlyGrabGraph(probe, 1.3, frameTimeAt(1.3, probe), frameBox(probe.video!))).toBeNull();
    const job = await runJob("videoThumbnail", { url: await url("slow"), timestamp: 1.3, format: "png" });
    const { result } = completed(job.state);
    expect(result.timestamp).toBe(1);
    expect(job.steps.map((s) => s.step)).toEqual(["ffprobe", "ffmpeg", "ffmpeg", "sharp encode"]);
    const reference = join(dir, "slow-ref.raw");
    await runFfmpeg(grabArgs(file("slow"), probe, 1, frameBox(probe.video!), reference), limits);
    expect((await pixels(job.outputPath(result.url))).equals(await readFile(reference))).toBe(true);
  });
});

describe("the probe's verdict stops the early ffmpeg", () => {
  /** Runs a job on a table of its own and returns its end and what still runs on its files. */
  async function runAndLook<T extends "extractAudio" | "videoThumbnail">(type: T, params: Record<string, unknown>) {
    const config = await testConfig();
    const job = await runJob(type, params as never, { config });
    return { job, left: await processesMentioning(config.workDir) };
  }

  it("no audio stream: no_audio_stream, and nothing left running", async () => {
    const { job, left } = await runAndLook("extractAudio", { url: await url("video") });
    expect(failed(job.state).error).toMatchObject({ code: "no_audio_stream", message: expect.stringContaining("no audio") });
    expect(left).toEqual([]);
  });

  it("a timestamp past the end: invalid_input naming the video's length, and nothing left running", async () => {
    const { job, left } = await runAndLook("videoThumbnail", { url: await url("video"), timestamp: 7 });
    expect(failed(job.state).error).toEqual({
      code: "invalid_input",
      message: "timestamp 7 s is past the end of the video, which is 6 s long; use a time from 0 to 6",
    });
    expect(left).toEqual([]);
  });

  it("not media: unsupported_media, and nothing left running", async () => {
    const { job, left } = await runAndLook("extractAudio", { url: media.serve("/notes.mp3", "These are my notes, not audio.\n") });
    expect(failed(job.state).error.code).toBe("unsupported_media");
    expect(left).toEqual([]);
  });
});

describe("cancel while the probe and the early ffmpeg both run", () => {
  it.each([
    ["extractAudio", { quality: "medium" }],
    ["videoThumbnail", { timestamp: 2, format: "jpg" }],
  ] as const)("%s: kills both", async (type, options) => {
    // The origin sends the first 16 KiB and holds every later range open without a byte: the
    // probe and the early ffmpeg both wait for the index (the file's end) until the cancel.
    const config = await testConfig({ INPUT_FIRST_READ_BYTES: String(16 * 1024), INPUT_IDLE_TIMEOUT_MS: "600000" });
    const table = new JobTable(config);
    const name = type === "extractAudio" ? "surround" : "video";
    const input = held.serve(`/held-${type}`, file(name), { kind: "stall-past", offset: 16 * 1024 });
    const id = `cancel-${type}`;
    table.start({ id, type, params: jobTypes[type].params.parse({ url: input, ...options }) as never });
    // Both read the input through its loopback URL, which names the job's directory.
    const jobDir = join(config.workDir, id);
    await until(async () => {
      const running = await processesMentioning(jobDir);
      return running.some((p) => /\bffprobe\b/.test(p.cmd)) && running.some((p) => /filter_(complex_)?script/.test(p.cmd));
    }, 30_000, "the probe and the early ffmpeg");
    expect(table.get(id)!.state).toBe("running");
    expect((await table.cancel(id))!.state).toBe("cancelled");
    expect(await processesMentioning(jobDir)).toEqual([]);
  });

  it("the job's time limit, passing while the probe runs, kills both: processing_timeout", async () => {
    // 60 ms: the download of a small file usually fits, the probe's library load alone does not; wherever it passes, nothing may be left.
    const config = await testConfig({ JOB_TIMEOUT_MS: "60" });
    const job = await runJob("extractAudio", { url: await url("surround") }, { config });
    expect(failed(job.state).error.code).toBe("processing_timeout");
    expect(await processesMentioning(config.workDir)).toEqual([]);
  });

  it("a waiting early run is killed by the job's signal, and reports the cancel", async () => {
    const controller = new AbortController();
    const output = join(dir, "never.mp3");
    const early = new EarlyFfmpeg(earlyMp3Args("medium", { input: file("mono"), output }), { signal: controller.signal, waitLimitMs: 60_000 });
    await until(async () => (await processesMentioning(output)).length > 0, 30_000, "ffmpeg to start");
    controller.abort();
    await expect(early.run("[0:0]anull[out]", { ...limits, signal: controller.signal })).rejects.toBeInstanceOf(JobCancelled);
    expect(await processesMentioning(output)).toEqual([]);
  });

  it("discard kills a run that never got its graph", async () => {
    const output = join(dir, "discarded.mp3");
    const early = new EarlyFfmpeg(earlyMp3Args("medium", { input: file("mono"), output }), { signal: limits.signal, waitLimitMs: 60_000 });
    await until(async () => (await processesMentioning(output)).length > 0, 30_000, "ffmpeg to start");
    await early.discard();
    expect(await processesMentioning(output)).toEqual([]);
    await expect(readFile(output)).rejects.toThrow(/ENOENT/);
  });
});

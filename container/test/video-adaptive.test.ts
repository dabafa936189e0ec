import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { topCopy } from "../src/processors/video-adaptive.ts";
import { ladderFor, rungOf } from "../src/tools/ladder.ts";
import { segmentBitrates } from "../src/tools/hls.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { JobTable } from "../src/jobs.ts";
import { jobTypes } from "../../src/contract/registry.ts";
import { testConfig, runJob, until, type FinishedJob } from "./helpers.ts";
import { completed, failed, useVideoMedia } from "./video-fixtures.ts";
import { variantsOf } from "../../test/support/hls.ts";

const exec = promisify(execFile);
const { serve, serveBytes } = useVideoMedia();

/** 640×360, 5 s, 25 fps, with a 440 Hz AAC track: the clip the ladder is tested on. */
let clip: Buffer;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "media-jobs-adaptive-"));
  const make = async (name: string, args: string[]) => {
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, join(work, name)]);
    return readFile(join(work, name));
  };
  clip = await make("clip.mp4", [
    "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=5",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
  ]);
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** A playlist's segments as RFC 8216 reads them: duration, and the byte range in the named file. */
function segmentsOf(playlist: string): { uri: string; duration: number; offset: number; length: number }[] {
  const out: { uri: string; duration: number; offset: number; length: number }[] = [];
  let duration = 0;
  let range = { offset: 0, length: 0 };
  for (const line of playlist.split("\n")) {
    if (line.startsWith("#EXTINF:")) duration = Number(line.slice(8).split(",")[0]);
    else if (line.startsWith("#EXT-X-BYTERANGE:")) {
      const [length, offset] = line.slice(17).split("@");
      range = { length: Number(length), offset: offset === undefined ? range.offset + range.length : Number(offset) };
    } else if (line && !line.startsWith("#")) out.push({ uri: line, duration, ...range });
  }
  return out;
}


/** The top-level ISO BMFF boxes of `bytes`, by type ("sidx moof mdat"); "?" when a box runs past the end. */
function boxesOf(bytes: Buffer): string {
  const types: string[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = at + 8 <= bytes.length ? bytes.readUInt32BE(at) : 0;
    if (size < 8 || at + size > bytes.length) {
      types.push("?");
      break;
    }
    types.push(bytes.toString("latin1", at + 4, at + 8));
    at += size;
  }
  return types.join(" ");
}

interface Probe {
  streams: { codec_type: string; codec_name: string; profile?: string; level?: number; width?: number; height?: number; avg_frame_rate?: string }[];
  packets: { codec_type: string; pts_time: string; size: string; flags: string }[];
}

async function probeFile(path: string): Promise<Probe> {
  const { stdout } = await exec("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_packets", path], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/** Bits per second of one kind of stream, from the sizes of its packets. */
function streamBitrate(probe: Probe, type: string, seconds: number): number {
  return (probe.packets.filter((p) => p.codec_type === type).reduce((sum, p) => sum + Number(p.size), 0) * 8) / seconds;
}

/**
 * How long one ladder encode may take on a loaded machine: more than the unit project's 60-s
 * test timeout, so the tests that run them have their own (TEST_MS per encode).
 */
const ENCODE_DEADLINE_MS = 120_000;
/** A test's timeout per encode it runs: the encode's deadline, and room for its checks. */
const TEST_MS = ENCODE_DEADLINE_MS + 30_000;

async function adaptive(params: Record<string, unknown>): Promise<{ job: FinishedJob; result: Record<string, any>; outputs: { name: string; contentType: string; size: number }[] }> {
  const job = await runJob("videoAdaptive", { url: serveBytes(`/clip-${Math.random()}.mp4`, clip), ...params } as never, { deadlineMs: ENCODE_DEADLINE_MS });
  const { result, outputs } = completed(job.state);
  return { job, result, outputs };
}

describe("videoAdaptive", () => {
  it("encodes a ladder up to the input's 360p in one folder; the master playlist's figures are true of the segments", async () => {
    const { job, result, outputs } = await adaptive({ segmentDuration: 2, mp4: true, dash: true });
    expect(parseStoredResult("videoAdaptive", result)).toEqual({ ok: true, value: result });
    expect(outputs.map((o) => `${o.name} ${o.contentType}`).sort()).toEqual([
      "stream/240p.m3u8 application/vnd.apple.mpegurl",
      "stream/240p.mp4 video/mp4",
      "stream/360p.m3u8 application/vnd.apple.mpegurl",
      "stream/360p.mp4 video/mp4",
      "stream/dash-240p.mp4 video/mp4",
      "stream/dash-360p.mp4 video/mp4",
      "stream/dash-audio.mp4 audio/mp4",
      "stream/download.mp4 video/mp4",
      "stream/manifest.mpd application/dash+xml",
      "stream/master.m3u8 application/vnd.apple.mpegurl",
    ]);
    expect(result).toMatchObject({ url: "stream/master.m3u8", segmentDuration: 2, source: { width: 640, height: 360, hasAudio: true, size: clip.length } });
    expect(result.duration).toBeCloseTo(5, 1);
    expect(result.totalSize).toBe(outputs.reduce((sum, o) => sum + o.size, 0));

    const master = (await job.output("stream/master.m3u8")).toString();
    const variants = variantsOf(master);
    expect(variants.map((v) => v.uri)).toEqual(["240p.m3u8", "360p.m3u8"]);
    const targets = { "240p": 400_000, "360p": 800_000 } as const;
    const boundaries: string[] = [];
    for (const [i, variant] of variants.entries()) {
      const name = variant.uri.replace(".m3u8", "") as keyof typeof targets;
      const playlist = (await job.output(`stream/${variant.uri}`)).toString();
      const segments = segmentsOf(playlist);
      const media = await job.output(`stream/${name}.mp4`);
      const probe = await probeFile(job.outputPath(`stream/${name}.mp4`));
      const video = probe.streams.find((s) => s.codec_type === "video")!;
      // Every segment is a fragment of the one file (its index, then its moof box), the ranges tile it after the init segment.
      expect(new Set(segments.map((s) => s.uri))).toEqual(new Set([`${name}.mp4`]));
      for (const s of segments) expect(boxesOf(media.subarray(s.offset, s.offset + s.length))).toMatch(/^(sidx )*moof mdat$/);
      const init = /BYTERANGE="(\d+)@0"/.exec(playlist)!;
      expect(media.toString("latin1", 4, 8)).toBe("ftyp");
      expect(segments[0]!.offset).toBe(Number(init[1]));
      expect(segments.at(-1)!.offset + segments.at(-1)!.length).toBe(media.length);

      // BANDWIDTH is the peak segment bit rate of RFC 8216bis: the largest rate of any run of
      // consecutive segments lasting 0.5 to 1.5 target durations; AVERAGE-BANDWIDTH the mean
      // (to the bit, rounded up).
      const target = Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(playlist)![1]);
      const runs = segments.flatMap((_, i) => segments.slice(i).map((__, n) => segments.slice(i, i + n + 1)));
      const rates = runs
        .map((run) => ({ seconds: run.reduce((sum, s) => sum + s.duration, 0), bits: run.reduce((sum, s) => sum + s.length * 8, 0) }))
        .filter((r) => r.seconds >= 0.5 * target && r.seconds <= 1.5 * target);
      const peak = Math.max(...rates.map((r) => r.bits / r.seconds));
      const seconds = segments.reduce((sum, s) => sum + s.duration, 0);
      const average = (segments.reduce((sum, s) => sum + s.length, 0) * 8) / seconds;
      expect(Number(variant.attrs.BANDWIDTH)).toBeGreaterThanOrEqual(peak);
      expect(Number(variant.attrs.BANDWIDTH)).toBeLessThan(peak + 1);
      expect(Number(variant.attrs["AVERAGE-BANDWIDTH"])).toBe(Math.ceil(average));

      // RESOLUTION, CODECS and FRAME-RATE are ffprobe's reading of the file.
      expect(variant.attrs.RESOLUTION).toBe(`${video.width}x${video.height}`);
      expect([video.width, video.height]).toEqual(name === "240p" ? [426, 240] : [640, 360]);
      expect(video.profile).toBe("High");
      expect(variant.attrs.CODECS).toBe(`avc1.6400${video.level!.toString(16).padStart(2, "0")},mp4a.40.2`);
      expect(probe.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac");
      expect(Number(variant.attrs["FRAME-RATE"])).toBe(25);

      // The video bitrate within 30 % of its target (x264's rate control on a 5-second clip).
      expect(streamBitrate(probe, "video", seconds)).toBeGreaterThan(targets[name] * 0.7);
      expect(streamBitrate(probe, "video", seconds)).toBeLessThan(targets[name] * 1.3);

      // Aligned: keyframes at 0, 2 and 4 s (after the first frame's B-frame delay) and nowhere else, in every rendition.
      const keyTimes = probe.packets.filter((p) => p.codec_type === "video" && p.flags.startsWith("K")).map((p) => Number(p.pts_time));
      const keyframes = keyTimes.map((t) => (t - keyTimes[0]!).toFixed(2));
      boundaries.push(segments.map((s) => s.duration.toFixed(3)).join(" "));
      expect(keyframes).toEqual(["0.00", "2.00", "4.00"]);
      expect(result.renditions[i]).toEqual({
        url: `stream/${name}.m3u8`,
        size: media.length,
        width: video.width,
        height: video.height,
        bandwidth: Number(variant.attrs.BANDWIDTH),
        averageBandwidth: Number(variant.attrs["AVERAGE-BANDWIDTH"]),
        codecs: variant.attrs.CODECS,
        frameRate: 25,
      });
    }
    expect(new Set(boundaries).size).toBe(1);

    // The MP4 beside the stream: the top rendition, progressive (its index first, no fragments).
    const mp4 = await job.output("stream/download.mp4");
    expect(mp4.indexOf("moov")).toBeLessThan(mp4.indexOf("mdat"));
    expect(mp4.indexOf("moof")).toBe(-1);
    const mp4Probe = await probeFile(job.outputPath("stream/download.mp4"));
    expect(mp4Probe.streams.map((s) => `${s.codec_type}:${s.codec_name}:${s.width ?? ""}`)).toEqual(["video:h264:640", "audio:aac:"]);
    expect(result.mp4).toMatchObject({ url: "stream/download.mp4", size: mp4.length, width: 640, height: 360 });

    // DASH over the same encodes: every representation's init segment and each of its
    // fragments make a file ffprobe reads as the representation says, bandwidth at least
    // every segment's bitrate, the codecs the HLS renditions'.
    const mpd = (await job.output("stream/manifest.mpd")).toString();
    expect(result.dash).toEqual({ url: "stream/manifest.mpd", size: Buffer.byteLength(mpd) });
    const representations = [...mpd.matchAll(/<Representation ([^>]*)>([\s\S]*?)<\/Representation>/g)].map((m) => ({
      attrs: Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
      file: /<BaseURL>([^<]+)<\/BaseURL>/.exec(m[2]!)![1]!,
      init: /<Initialization range="(\d+)-(\d+)"/.exec(m[2]!)!.slice(1).map(Number) as [number, number],
      ranges: [...m[2]!.matchAll(/mediaRange="(\d+)-(\d+)"/g)].map((r) => [Number(r[1]), Number(r[2])] as [number, number]),
    }));
    expect(representations.map((r) => [r.file, r.attrs.codecs, r.attrs.width ?? "audio"])).toEqual([
      ["dash-240p.mp4", result.renditions[0].codecs.split(",")[0], "426"],
      ["dash-360p.mp4", result.renditions[1].codecs.split(",")[0], "640"],
      ["dash-audio.mp4", "mp4a.40.2", "audio"],
    ]);
    for (const r of representations) {
      const file = await job.output(`stream/${r.file}`);
      expect(r.init[0]).toBe(0);
      expect(r.ranges[0]![0]).toBe(r.init[1] + 1);
      expect(r.ranges.at(-1)![1]).toBe(file.length - 1);
      for (const [i, [from, to]] of r.ranges.entries()) {
        expect(boxesOf(file.subarray(from, to + 1))).toMatch(/^(sidx )*moof mdat$/);
        if (i < r.ranges.length - 1) expect(Number(r.attrs.bandwidth)).toBeGreaterThanOrEqual(((to - from + 1) * 8) / 2);
      }
      const piece = join(work, `piece-${r.file}`);
      await writeFile(piece, Buffer.concat([file.subarray(0, r.init[1] + 1), file.subarray(r.ranges[1]![0], r.ranges[1]![1] + 1)]));
      const stream = (await probeFile(piece)).streams[0]!;
      if (r.attrs.width) expect([stream.codec_name, stream.width, stream.height]).toEqual(["h264", Number(r.attrs.width), Number(r.attrs.height)]);
      else expect(stream.codec_name).toBe("aac");
    }
  }, TEST_MS);

  it("never upscales: a 320×180 input gets one 180p rendition, and asked-for sizes above it are left out", async () => {
    const url = await serve("small");
    const byDefault = completed((await runJob("videoAdaptive", { url }, { deadlineMs: ENCODE_DEADLINE_MS })).state).result;
    expect(byDefault.renditions.map((r: { width: number; height: number }) => [r.width, r.height])).toEqual([[320, 180]]);
    const asked = await runJob("videoAdaptive", { url, renditions: [{ height: 720 }, { height: 144, bitrate: "200K" }], audio: false, dash: true }, { deadlineMs: ENCODE_DEADLINE_MS });
    const { result } = completed(asked.state);
    expect(result.renditions.map((r: { url: string; width: number; height: number }) => [r.url, r.width, r.height])).toEqual([["stream/144p.m3u8", 256, 144]]);
    // audio: false writes a stream without sound, and CODECS says so.
    expect(result.renditions[0].codecs).toMatch(/^avc1\.[0-9a-f]{6}$/);
    expect((await probeFile(asked.outputPath("stream/144p.mp4"))).streams.map((s) => s.codec_type)).toEqual(["video"]);
    expect(result.mp4).toBeNull();
    // DASH without sound: one video representation, no audio adaptation set.
    const mpd = (await asked.output("stream/manifest.mpd")).toString();
    expect([...mpd.matchAll(/<BaseURL>([^<]+)<\/BaseURL>/g)].map((m) => m[1])).toEqual(["dash-144p.mp4"]);
    expect(mpd).not.toContain('contentType="audio"');
  }, 2 * TEST_MS);

  it("fails an audio-only input with no_video_stream", async () => {
    // The MP3 that extractAudio makes is a handy audio-only file.
    const extracted = await runJob("extractAudio", { url: await serve("small") });
    const mp3 = await extracted.output(completed(extracted.state).result.url);
    const job = await runJob("videoAdaptive", { url: serveBytes("/audio.mp3", mp3) });
    expect(failed(job.state).error).toMatchObject({ code: "no_video_stream", message: expect.stringMatching(/no video stream/) });
  });
});

describe("videoAdaptive playable early", () => {
  /** The runner's side: each upload's bytes and each announcement, in the order they came. */
  async function runner() {
    const received: ({ kind: "upload"; name: string; body: Buffer } | { kind: "playable"; body: { id: string; url: string } })[] = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (req.method === "PUT") {
        received.push({ kind: "upload", name: decodeURIComponent(req.url!.split("/").at(-1)!), body });
        return void res.writeHead(201).end();
      }
      if (req.url === "/internal/processor-playable") received.push({ kind: "playable", body: JSON.parse(body.toString("utf8")) });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { received, origin, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  }

  it("copies an H.264/AAC input into the top rendition, publishes it with a master naming only it, and never changes it after", async () => {
    // 10 s of 640×360 H.264 at 600 kbit/s with a keyframe every 2 s, and AAC-LC.
    await exec("ffmpeg", [
      "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=10",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "50", "-b:v", "600k", "-c:a", "aac", "-shortest", join(work, "h264.mp4"),
    ]);
    const input = await readFile(join(work, "h264.mp4"));
    const side = await runner();
    try {
      const table = new JobTable(await testConfig());
      const id = `test_playable_${process.pid}`;
      table.start({
        id,
        type: "videoAdaptive",
        params: jobTypes.videoAdaptive.params.parse({ url: serveBytes("/h264.mp4", input), segmentDuration: 2 }) as never,
        callback: { url: `${side.origin}/internal/processor-events`, token: "t".repeat(43), outputs: `${side.origin}/internal/processor-outputs/${id}` },
      });
      const state = await until(() => { const s = table.get(id)!; return s.state === "running" ? undefined : s; }, "the job's end", ENCODE_DEADLINE_MS);
      const { result, outputs } = completed(state);
      const path = (name: string) => table.output(id, name)!.path;

      // Announced once, after exactly the top rendition's files and a master naming only it were uploaded.
      const announced = side.received.findIndex((r) => r.kind === "playable");
      expect(side.received.filter((r) => r.kind === "playable").map((r) => r.body)).toEqual([{ id, url: "stream/master.m3u8" }]);
      const before = side.received.slice(0, announced) as { name: string; body: Buffer }[];
      expect(before.map((r) => r.name).sort()).toEqual(["stream/360p.m3u8", "stream/360p.mp4", "stream/master.m3u8"]);
      const early = before.find((r) => r.name === "stream/master.m3u8")!.body.toString();
      expect(variantsOf(early).map((v) => v.uri)).toEqual(["360p.m3u8"]);

      // What was published is what the job completed with, to the byte, and was not uploaded again;
      // the master grew to name both renditions, the same top variant among them.
      for (const name of ["stream/360p.m3u8", "stream/360p.mp4"]) {
        expect(before.find((r) => r.name === name)!.body.equals(await readFile(path(name)))).toBe(true);
        expect(side.received.filter((r) => r.kind === "upload" && r.name === name)).toHaveLength(1);
      }
      const master = (await readFile(path("stream/master.m3u8"))).toString();
      expect(variantsOf(master).map((v) => v.uri)).toEqual(["240p.m3u8", "360p.m3u8"]);
      expect(variantsOf(master).at(-1)).toEqual(variantsOf(early)[0]);
      const last = side.received.filter((r): r is { kind: "upload"; name: string; body: Buffer } => r.kind === "upload" && r.name === "stream/master.m3u8").at(-1)!;
      expect(last.body.toString()).toBe(master);
      expect(new Set(side.received.flatMap((r) => (r.kind === "upload" ? [r.name] : [])))).toEqual(new Set(outputs.map((o) => o.name)));

      // A stream copy: the input's own video packets (same codec, profile, sizes, so the same
      // bitrate) and its own AAC; the 240p rung is an encode, cut where the copy is.
      const source = await probeFile(join(work, "h264.mp4"));
      const top = await probeFile(path("stream/360p.mp4"));
      const video = (p: Probe) => p.streams.find((s) => s.codec_type === "video")!;
      expect([video(top).codec_name, video(top).profile]).toEqual([video(source).codec_name, video(source).profile]);
      expect(video(top).profile).toBe("Constrained Baseline");
      const sizes = (p: Probe, type: string) => p.packets.filter((k) => k.codec_type === type).map((k) => k.size);
      expect(sizes(top, "video")).toEqual(sizes(source, "video"));
      expect(sizes(top, "audio")).toEqual(sizes(source, "audio"));
      expect(streamBitrate(top, "video", 10)).toBe(streamBitrate(source, "video", 10));
      expect(video(await probeFile(path("stream/240p.mp4"))).profile).toBe("High");
      const durations = (name: string) => segmentsOf(readFileSync(path(name), "utf8")).map((x) => x.duration);
      expect(durations("stream/240p.m3u8")).toEqual(durations("stream/360p.m3u8"));
      expect(durations("stream/360p.m3u8")).toEqual([2, 2, 2, 2, 2]);
      expect(result.renditions.map((r: { url: string }) => r.url)).toEqual(["stream/240p.m3u8", "stream/360p.m3u8"]);
      await table.remove(id);
    } finally {
      await side.close();
    }
  }, TEST_MS);
});

describe("topCopy", () => {
  const top = rungOf(1080, { width: 1920, height: 1080 }, 5_000_000);
  const probe = { format: "mp4", duration: 600, size: 300e6, bitRate: 4_128_000, video: { index: 0, codec: "h264", width: 1920, height: 1080, frameRate: 25 }, audio: { index: 1, codec: "aac", bitRate: 128_000, channels: 2, startTime: 0 } };
  const h264 = { codec: "h264", profile: "High", pixFmt: "yuv420p", sampleAspectRatio: "1:1", fieldOrder: "progressive", bitRate: 4_000_000 };
  const aac = { codec: "aac", profile: "LC" };
  it.each([
    ["H.264 High 4:2:0 with AAC-LC: both copied", {}, { video: h264, audio: aac }, { audio: "copy" }],
    ["HE-AAC sound: the video copied, the sound encoded", {}, { video: h264, audio: { codec: "aac", profile: "HE-AAC" } }, { audio: "encode" }],
    ["audio: false", { audio: false }, { video: h264, audio: aac }, { audio: "none" }],
    ["HEVC", {}, { video: { ...h264, codec: "hevc" }, audio: aac }, { not: "the video is hevc, not H.264" }],
    ["10-bit", {}, { video: { ...h264, profile: "High 10", pixFmt: "yuv420p10le" }, audio: aac }, { not: "H.264 profile High 10 is not one every player decodes" }],
    ["over twice the rung's bitrate", {}, { video: { ...h264, bitRate: 12_000_000 }, audio: aac }, { not: "its bitrate 12000000 is over twice the top rung's 5000000" }],
    ["a watermark", { watermark: true }, { video: h264, audio: aac }, { not: "a watermark is drawn on every rendition" }],
  ] as const)("%s", (_, options, facts, expected) => {
    expect(topCopy(top, probe, facts, { audio: true, watermark: false, ...options })).toEqual(expected);
  });
  it("an input of another size than the top rung is encoded", () => {
    expect(topCopy(rungOf(720, { width: 1920, height: 1080 }, 2_800_000), probe, { video: h264, audio: aac }, { audio: true, watermark: false })).toEqual({ not: "1920×1080 is not the top rung's 1280×720" });
  });
});

describe("segmentBitrates", () => {
  it("takes the peak over runs of 0.5 to 1.5 target durations: a last segment of one keyframe in 40 ms is not the stream's peak", () => {
    const segments = [
      { duration: 2, length: 100_000, offset: 0 },
      { duration: 2, length: 100_000, offset: 100_000 },
      { duration: 0.04, length: 20_000, offset: 200_000 },
    ];
    // Alone the last segment runs at 4 Mbit/s; the runs the RFC counts top out at 2.04 s and 120 kB.
    expect(segmentBitrates(segments, 2)).toEqual({ peak: Math.ceil((120_000 * 8) / 2.04), average: Math.ceil((220_000 * 8) / 4.04) });
    // Shorter than half a target duration: its average.
    expect(segmentBitrates([{ duration: 0.5, length: 10_000, offset: 0 }], 2)).toEqual({ peak: 160_000, average: 160_000 });
  });
});

describe("ladderFor", () => {
  const hd = { width: 1920, height: 1080 };
  it.each([
    ["the default: 3 rungs of the ladder up to 1080p, the top, the lowest and one between", {}, hd, ["240p 426x240", "480p 854x480", "1080p 1920x1080"]],
    ["five rungs", { maxRenditions: 5 }, hd, ["240p 426x240", "360p 640x360", "480p 854x480", "720p 1280x720", "1080p 1920x1080"]],
    ["a portrait video: the shorter side is the rung's size", { maxRenditions: 2, maxHeight: 720 }, { width: 1080, height: 1920 }, ["240p 240x426", "720p 720x1280"]],
    ["a 2160p input under maxHeight 1440", { maxHeight: 1440, maxRenditions: 1 }, { width: 3840, height: 2160 }, ["1440p 2560x1440"]],
    ["an input below the ladder: its own size", {}, { width: 200, height: 150 }, ["150p 200x150"]],
  ] as const)("%s", (_, params, video, expected) => {
    const rungs = ladderFor({ maxHeight: 1080, maxRenditions: 3, ...params }, video);
    expect(rungs.map((r) => `${r.name} ${r.width}x${r.height}`)).toEqual(expected);
  });
});

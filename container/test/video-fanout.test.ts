// The plan a compressVideo attempt offered a fan-out answers with (docs/fanout.md): only a
// constant-rate video whose container states its frames, long enough, cut on frame numbers
// into enough chunks for the seats and none under a second; and chunks encoded with the
// processor's arguments join into the single encode's pictures, frame for frame.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { FanoutOffer } from "../../src/contract/fanout.ts";
import { stitchPart } from "../../src/contract/fanout.ts";
import { assertMp4, audioPartArgs, checkJoin, chunkSeekS, chunkTimescale, planFanout, stitchArgs, writeChunkList } from "../src/processors/compress-video-parts.ts";
import { buildArgs } from "../src/processors/compress-video.ts";
import { probeMedia, type MediaProbe } from "../src/tools/ffprobe.ts";

const run = promisify(execFile);

const offer: FanoutOffer = { seats: 4, minSeconds: 120, chunkSeconds: 20, chunksPerSeat: 3, maxChunks: 96 };
const params = { url: "https://example.com/a.mp4", quality: "medium", codec: "h264", stripAudio: false } as const;
const probe = (seconds: number, rate = { num: 30000, den: 1001 }, frames = Math.round((seconds * rate.num) / rate.den)): MediaProbe => ({
  format: "mp4",
  duration: seconds,
  size: 1e9,
  bitRate: null,
  video: { index: 0, codec: "h264", width: 1920, height: 1080, frameRate: rate.num / rate.den, frames, constantRate: rate },
  audio: { index: 1, codec: "aac", bitRate: 128000, channels: 2, startTime: 0 },
});

describe("planFanout", () => {
  it("cuts a 10-minute 29.97 fps video into 30 chunks of about 20 s that cover every frame once", () => {
    const plan = planFanout(offer, probe(600), params, 1e9)!;
    expect(plan.chunks).toHaveLength(30);
    expect(plan.fps).toEqual({ num: 30000, den: 1001 });
    expect(plan.chunks[0]!.first).toBe(0);
    for (let i = 1; i < plan.chunks.length; i++) expect(plan.chunks[i]!.first).toBe(plan.chunks[i - 1]!.first + plan.chunks[i - 1]!.frames);
    expect(plan.chunks.reduce((sum, c) => sum + c.frames, 0)).toBe(plan.frames);
    expect(plan).toMatchObject({ frames: 17982, audio: true, source: { size: 1e9, width: 1920, height: 1080, duration: 600 } });
  });

  it("gives a shorter input at least three chunks a seat, and no chunk under a second", () => {
    expect(planFanout(offer, probe(130), params, 1)!.chunks).toHaveLength(12);
    expect(planFanout({ ...offer, minSeconds: 5, chunksPerSeat: 16 }, probe(6), params, 1)!.chunks).toHaveLength(6);
  });

  it("encodes alone: a short input, a variable rate, a frame count the length does not bear out, a video the container does not count, an audio file", () => {
    expect(planFanout(offer, probe(119), params, 1)).toBeUndefined();
    const variable = probe(600);
    delete variable.video!.constantRate;
    expect(planFanout(offer, variable, params, 1)).toBeUndefined();
    expect(planFanout(offer, probe(600, { num: 30, den: 1 }, 12000), params, 1)).toBeUndefined();
    const uncounted = probe(600);
    delete uncounted.video!.frames;
    expect(planFanout(offer, uncounted, params, 1)).toBeUndefined();
    expect(planFanout(offer, { ...probe(600), video: null }, params, 1)).toBeUndefined();
  });

  it("plans no audio part for a silent video or one whose audio is stripped", () => {
    expect(planFanout(offer, { ...probe(600), audio: null }, params, 1)!.audio).toBe(false);
    expect(planFanout(offer, probe(600), { ...params, stripAudio: true }, 1)!.audio).toBe(false);
  });
});

describe("chunks joined", () => {
  it("are frame for frame the single encode's pictures: no frame repeated or dropped at a seam, the join's checks pass", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fanout-"));
    try {
      const source = join(dir, "source.mp4");
      // 30 fps, B-frames, a keyframe every 35 frames (not on the chunks' seams), a moving pattern whose every frame differs.
      await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30000/1001:d=4", "-c:v", "libx264", "-preset", "veryfast", "-g", "35", "-bf", "2", "-pix_fmt", "yuv420p", source]);
      const probe = await probeMedia(source, AbortSignal.timeout(30_000));
      const plan = planFanout({ ...offer, minSeconds: 1, seats: 2 }, probe, params, 1)!;
      expect(plan.chunks).toHaveLength(4);
      const { num, den } = plan.fps;
      for (const [index, chunk] of plan.chunks.entries()) {
        const seekS = chunk.first === 0 ? undefined : ((chunk.first - 0.5) * den) / num;
        await run("ffmpeg", ["-v", "error", ...buildArgs(params, probe, { input: source, output: join(dir, `part-${index}.mp4`) }, undefined, { seekS, frames: chunk.frames, threads: 1, ...chunkTimescale(plan.fps) })]);
      }
      const list = await writeChunkList(dir, plan.chunks.map((_, i) => join(dir, `part-${i}.mp4`)), stitchPart(plan));
      const joined = join(dir, "joined.mp4");
      await run("ffmpeg", ["-v", "error", ...stitchArgs(list, undefined, joined)]);
      await checkJoin(joined, stitchPart(plan), AbortSignal.timeout(30_000));
      // Each frame one tick of the rate after the one before, across the seams too (the list states each chunk's length).
      const dts = (await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts", "-of", "csv=p=0", joined])).stdout.trim().split("\n").map(Number);
      expect(new Set(dts.slice(1).map((t, i) => t - dts[i]!))).toEqual(new Set([dts[1]! - dts[0]!]));
      const single = join(dir, "single.mp4");
      await run("ffmpeg", ["-v", "error", ...buildArgs({ ...params, stripAudio: true }, probe, { input: source, output: single })]);
      const [joinedPsnr, singlePsnr] = [await psnrPerFrame(joined, source, dir), await psnrPerFrame(single, source, dir)];
      expect(joinedPsnr).toHaveLength(120);
      // A repeated frame shifts every later one: its PSNR falls by 15 dB or more. Encoded apart, a frame may differ a little.
      for (const [i, db] of joinedPsnr.entries()) expect(db, `frame ${i}`).toBeGreaterThan(singlePsnr[i]! - 4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a hostile part", () => {
  // A part's file is written under its chunk's uid: a tool taken over there could leave a
  // list or a playlist naming another file instead of its video.
  it("that is a concat list or an HLS playlist is refused before the join reads it; an MP4 is taken", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fanout-hostile-"));
    try {
      await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-c:v", "libx264", "-preset", "ultrafast", join(dir, "secret.mp4")]);
      await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-c:v", "libx264", "-preset", "ultrafast", join(dir, "part-0.mp4")]);
      const head = async (name: string) => (await readFile(join(dir, name))).subarray(0, 12);
      expect(() => assertMp4(Buffer.from(""), 0)).toThrow(/part 0 of the encode is not an MP4/);
      await head("part-0.mp4").then((bytes) => assertMp4(bytes, 0));
      await writeFile(join(dir, "list.ffconcat"), "ffconcat version 1.0\nfile 'part-0.mp4'\nfile 'part-1.mp4'\n");
      const count = async (file: string) => Number((await run("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file])).stdout.trim());

      // A nested list: ffmpeg alone would join the secret's frames (the whitelist lets `concat` in); the head check stops it.
      await writeFile(join(dir, "part-1.mp4"), "ffconcat version 1.0\nfile 'secret.mp4'\n");
      expect(() => assertMp4(Buffer.from("ffconcat version 1.0\n"), 1)).toThrow(/part 1 of the encode is not an MP4/);
      await run("ffmpeg", ["-v", "error", ...stitchArgs(join(dir, "list.ffconcat"), undefined, join(dir, "listed.mp4"))]);
      expect(await count(join(dir, "listed.mp4"))).toBe(50);

      // A playlist: refused by the head check, and by the join's format whitelist as well (nothing of the secret joined).
      const playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsecret.mp4\n#EXT-X-ENDLIST\n";
      expect(() => assertMp4(Buffer.from(playlist), 1)).toThrow(/not an MP4/);
      await writeFile(join(dir, "part-1.mp4"), playlist);
      const played = await run("ffmpeg", ["-v", "error", ...stitchArgs(join(dir, "list.ffconcat"), undefined, join(dir, "played.mp4"))]);
      expect(played.stderr).toMatch(/not on whitelist/);
      expect(await count(join(dir, "played.mp4"))).toBe(25);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function psnrPerFrame(output: string, source: string, dir: string): Promise<number[]> {
  const stats = join(dir, `psnr-${Math.random().toString(36).slice(2)}.log`);
  await run("ffmpeg", ["-v", "error", "-i", output, "-i", source, "-lavfi", `[0:v][1:v]psnr=shortest=1:stats_file=${stats}`, "-f", "null", "-"]);
  return (await readFile(stats, "utf8")).trim().split("\n").map((line) => Number(/psnr_avg:([0-9.]+)/.exec(line)?.[1] ?? 99));
}

describe("a chunk's seek", () => {
  // An MP4 whose sound starts before its picture (a file joined by copy; phones' edit lists):
  // ffmpeg's -ss counts from the container's start, and a chunk seeking without the picture's
  // offset took the frame before its first.
  it("begins at its first frame when the picture starts after the sound, which the join keeps", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fanout-offset-"));
    try {
      const picture = join(dir, "picture.mp4");
      const source = join(dir, "source.mp4");
      await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=4,noise=alls=20:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-g", "35", "-pix_fmt", "yuv420p", picture]);
      await run("ffmpeg", ["-v", "error", "-itsoffset", "0.021", "-i", picture, "-f", "lavfi", "-i", "sine=d=4:sample_rate=48000", "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", source]);
      const probe = await probeMedia(source, AbortSignal.timeout(30_000));
      const plan = planFanout({ ...offer, minSeconds: 1, seats: 2 }, probe, params, 1)!;
      expect(plan.video.offsetS).toBeCloseTo(0.021, 2);
      const md5 = async (args: string[]) => (await run("ffmpeg", ["-v", "error", ...args, "-map", "0:v", "-frames:v", "1", "-f", "framemd5", "-"])).stdout.trim().split("\n").at(-1)!.split(",").at(-1)!.trim();
      for (const chunk of plan.chunks.slice(1)) {
        const first = await md5(["-ss", chunkSeekS(chunk.first, plan.fps, plan.video).toFixed(6), "-i", source]);
        expect(first, `chunk at frame ${chunk.first}`).toBe(await md5(["-i", source, "-vf", `select=eq(n\\,${chunk.first})`]));
      }
      // Joined with the audio part, the picture starts 21 ms after the sound, as in the input,
      // with the input's 120 frames. (The single encode keeps the 21 ms by repeating its first
      // frame: 121 frames, the first at 0.)
      for (const [index, chunk] of plan.chunks.entries()) {
        const seekS = chunk.first === 0 ? undefined : chunkSeekS(chunk.first, plan.fps, plan.video);
        await run("ffmpeg", ["-v", "error", ...buildArgs({ ...params, stripAudio: true }, probe, { input: source, output: join(dir, `part-${index}.mp4`) }, undefined, { seekS, frames: chunk.frames, threads: 1, ...chunkTimescale(plan.fps) })]);
      }
      const audio = join(dir, "audio.m4a");
      await run("ffmpeg", ["-v", "error", ...audioPartArgs(params, probe.audio!, source, audio)]);
      const part = stitchPart(plan);
      expect(part.offsetS).toBeCloseTo(0.021, 3);
      const list = await writeChunkList(dir, plan.chunks.map((_, i) => join(dir, `part-${i}.mp4`)), part);
      const joined = join(dir, "joined.mp4");
      await run("ffmpeg", ["-v", "error", ...stitchArgs(list, audio, joined, part.offsetS)]);
      await checkJoin(joined, part, AbortSignal.timeout(30_000));
      const streams = async (file: string) => {
        const lines = (await run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=codec_type,start_time,nb_read_packets", "-of", "csv=p=0", file])).stdout.trim().split("\n");
        const of = (type: string) => lines.map((l) => l.split(",")).find((f) => f[0] === type)!;
        return { lead: Number(of("video")[1]) - Number(of("audio")[1]), frames: Number(of("video")[2]) };
      };
      const [input, output] = [await streams(source), await streams(joined)];
      expect(output.frames).toBe(120);
      expect(output.lead).toBeCloseTo(input.lead, 3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

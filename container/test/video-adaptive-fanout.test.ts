// videoAdaptive across seats (docs/fanout.md): the plan cuts the video where segments begin
// (the copied top rendition's, or each multiple of the segment duration), and chunks encoded
// with the processor's own arguments, joined by the stitch's, make renditions whose segments
// begin where the copy's do, on a phone-like input (29.97 fps, B-frames, a keyframe every
// 34 frames, AAC at 44.1 kHz).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FanoutOffer, JobPart } from "../../src/contract/fanout.ts";
import { stitchPart } from "../../src/contract/fanout.ts";
import { videoAdaptiveParams } from "../../src/contract/jobs/video-adaptive.ts";
import { checkJoin, writeChunkList } from "../src/processors/compress-video-parts.ts";
import { chunkRuns, ladderStitchArgs, planLadder, segmentStarts } from "../src/processors/video-adaptive-parts.ts";
import { checkAligned, measure, type MeasuredRung } from "../src/processors/video-adaptive.ts";
import { buildArgs, copyArgs, ladderFor } from "../src/tools/ladder.ts";
import { probeMedia, type MediaProbe } from "../src/tools/ffprobe.ts";

const run = promisify(execFile);

/** Each frame's PSNR (dB, the planes' average) of `output` against `source` scaled to its size. */
async function psnrFrames(output: string, source: string, dir: string): Promise<number[]> {
  const stats = join(dir, `psnr-${Date.now()}.log`);
  await ffmpeg(["-i", output, "-i", source, "-lavfi", `[1:v][0:v]scale2ref=flags=bicubic[ref][out];[out][ref]psnr=stats_file=${stats}`, "-f", "null", "-"]);
  return (await readFile(stats, "utf8")).trim().split("\n").map((line) => Number(/psnr_avg:([\d.]+|inf)/.exec(line)![1]!.replace("inf", "99")));
}
const ffmpeg = (args: string[]) => run("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args], { maxBuffer: 16 * 1024 * 1024 });

const offer: FanoutOffer = { seats: 2, minSeconds: 10, chunkSeconds: 6, chunksPerSeat: 2, maxChunks: 96 };
const params = videoAdaptiveParams.parse({ url: "https://example.com/a.mp4", segmentDuration: 4, renditions: [{ height: 180 }, { height: 360 }] });
const ntsc = { num: 30000, den: 1001 };

describe("segmentStarts", () => {
  it("starts an encoded segment at the first frame at or past each multiple of its duration", () => {
    // 6 s at 29.97 fps is 179.82 frames: the second segment begins at frame 180.
    expect(segmentStarts(600, ntsc, 6, null)).toEqual([180, 360, 540]);
    expect(segmentStarts(300, { num: 25, den: 1 }, 2, null)).toEqual([50, 100, 150, 200, 250]);
  });

  it("starts a copied segment where the copy's lengths add up to, and refuses one off the frame grid", () => {
    expect(segmentStarts(400, ntsc, 6, { segments: [6.8068, 5.672333, 2.9] })).toEqual([204, 374]);
    expect(segmentStarts(400, ntsc, 6, { segments: [6.82, 5.672333, 2.9] })).toBeUndefined();
  });
});

describe("planLadder", () => {
  const probe = (seconds: number): MediaProbe => ({
    format: "mov,mp4,m4a,3gp,3g2,mj2",
    duration: seconds,
    size: 1e8,
    bitRate: null,
    video: { index: 0, codec: "h264", width: 640, height: 360, frameRate: 30000 / 1001, frames: Math.round((seconds * 30000) / 1001), constantRate: ntsc },
    audio: { index: 1, codec: "aac", bitRate: 128000, channels: 2, startTime: 0 },
  });

  it("cuts chunks of whole segments, about the offer's length, covering every frame once", () => {
    const plan = planLadder({ ...offer, minSeconds: 60, chunkSeconds: 20, seats: 4, chunksPerSeat: 3 }, probe(600), { ...params, segmentDuration: 6 }, null, 1e8)!;
    expect(plan.chunks).toHaveLength(30);
    const starts = new Set(segmentStarts(plan.frames, ntsc, 6, null));
    for (const c of plan.chunks.slice(1)) expect(starts.has(c.first), `${c.first}`).toBe(true);
    expect(plan.chunks.reduce((sum, c) => sum + c.frames, 0)).toBe(plan.frames);
    // A second of 29.97 fps encoded before each chunk after the first, and left out.
    expect(plan.ladder).toEqual({ top: null, preroll: 30, readTop: false, format: "mov,mp4,m4a,3gp,3g2,mj2", hasAudio: true });
  });

  it("stays on one seat under the offer's length, or with a single segment", () => {
    expect(planLadder(offer, probe(9), params, null, 1)).toBeUndefined();
    expect(planLadder(offer, probe(12), { ...params, segmentDuration: 10 }, null, 1)).toBeDefined();
    expect(planLadder({ ...offer, minSeconds: 5 }, probe(9), { ...params, segmentDuration: 10 }, null, 1)).toBeUndefined();
  });
});

describe("chunks of a phone-like video", () => {
  let dir: string;
  let input: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "adaptive-fanout-"));
    input = join(dir, "phone.mp4");
    await ffmpeg([
      "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30000/1001:d=20,noise=alls=4:allf=t", "-f", "lavfi", "-i", "sine=d=20:sample_rate=44100",
      "-c:v", "libx264", "-preset", "veryfast", "-b:v", "900k", "-g", "34", "-bf", "3", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-movflags", "+faststart", input,
    ]);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("joins into a rendition with every frame whose segments begin where the copied top's do", async () => {
    const signal = new AbortController().signal;
    const probe = await probeMedia(input, signal);
    const rungs = ladderFor(params, probe.video!);
    const top = { playlist: join(dir, "360p.m3u8"), media: join(dir, "360p.mp4") };
    await ffmpeg(copyArgs(probe, "copy", params.segmentDuration, input, top).slice(0));
    const copied = await measure(rungs[1]!, top, true, signal);
    const plan = planLadder(offer, probe, params, copied, 1)!;
    expect(plan.ladder!.top).toMatchObject({ name: "360p", width: 640 });
    // Each chunk begins at a keyframe of the input where a copied segment begins.
    const sourceKeys = (await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", input])).stdout.trim().split("\n").flatMap((f, i) => (f.includes("K") ? [i] : []));
    for (const c of plan.chunks) expect(sourceKeys).toContain(c.first);

    const parts: string[] = [];
    for (const [index, chunk] of plan.chunks.entries()) {
      const part: Extract<JobPart, { role: "video" }> = { role: "video", index, chunk, fps: plan.fps, video: plan.video, threads: 1, ladder: { copiedTop: true, preroll: index === 0 ? 0 : plan.ladder!.preroll } };
      const output = join(dir, `part-${index}.mp4`);
      const work = join(dir, `chunk-${index}`);
      await mkdir(work);
      for (const args of chunkRuns(params, part, rungs.slice(0, -1), { input, dir: work, output })) await ffmpeg(args);
      parts.push(output);
    }
    const audio = join(dir, "audio.m4a");
    await ffmpeg(["-i", input, "-vn", "-c:a", "aac", "-b:a", "128k", audio]);
    const list = await writeChunkList(dir, parts, stitchPart(plan));
    const low = { playlist: join(dir, "180p.m3u8"), media: join(dir, "180p.mp4") };
    await ffmpeg(ladderStitchArgs(list, audio, params.segmentDuration, [low]));

    await checkJoin(low.media, stitchPart(plan), signal);
    const joined: MeasuredRung = await measure(rungs[0]!, low, true, signal);
    expect(() => checkAligned([joined, copied])).not.toThrow();
    expect(joined.segments.map((s) => s.duration.toFixed(3))).toEqual(copied.segments.map((s) => s.duration.toFixed(3)));
    expect(joined).toMatchObject({ width: 320, height: 180, codecs: expect.stringMatching(/^avc1\.64[0-9a-f]{4},mp4a\.40\.2$/) });

    // Each chunk's first frames as sharp as the single run's there: its rate control warmed up on the preroll.
    const single = { playlist: join(dir, "single", "180p.m3u8"), media: join(dir, "single", "180p.mp4") };
    await mkdir(join(dir, "single"));
    await ffmpeg(buildArgs(params, probe, rungs.slice(0, 1), { input, rungs: [single] }, undefined, true));
    const [joinedPsnr, singlePsnr] = [await psnrFrames(low.media, input, dir), await psnrFrames(single.media, input, dir)];
    for (const c of plan.chunks.slice(1)) {
      const after = (frames: number[]) => frames.slice(c.first, c.first + 7).reduce((a, b) => a + b, 0) / 7;
      expect(after(joinedPsnr), `frames ${c.first}–${c.first + 6}`).toBeGreaterThan(after(singlePsnr) - 1.5);
    }
  }, 120_000);
});

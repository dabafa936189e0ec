// The runner's pure fan-out rules (src/runner/fanout-plan.ts, docs/fanout.md): what a fanned-out
// job does next from its parts' rows, the stitch it asks for, and the fan-out its timings show.
import { describe, expect, it } from "vitest";
import type { FanoutPlan } from "../../src/contract/fanout.ts";
import type { JobRow } from "../../src/db/schema.ts";
import { mayFanOut, stitchPart } from "../../src/contract/fanout.ts";
import { decideParts, fanoutTimings, stitchInputKey } from "../../src/runner/fanout-plan.ts";

const row = (id: string, status: JobRow["status"], part: JobRow["part"], times: { startedAt?: number; completedAt?: number } = {}, error?: { code: string; message: string }) =>
  ({ id, status, part, startedAt: times.startedAt ?? null, completedAt: times.completedAt ?? null, errorCode: error?.code ?? null, errorMessage: error?.message ?? null }) as JobRow;
const chunk = (index: number) => ({ role: "video" as const, index, chunk: { first: index * 25, frames: 25 }, fps: { num: 25, den: 1 }, video: { index: 0, width: 320, height: 180 }, threads: 1 });

describe("decideParts", () => {
  it("starts parts up to the seats, counting those started or processing, chunks first", () => {
    const rows = [row("v0", "processing", chunk(0)), row("v1", "queued", chunk(1)), row("v2", "queued", chunk(2)), row("v3", "queued", chunk(3)), row("a", "queued", { role: "audio" })];
    expect(decideParts(rows, new Set(["v1"]), 3)).toEqual({ start: ["v2"], done: 0 });
    expect(decideParts(rows, new Set(), 2)).toEqual({ start: ["v1"], done: 0 });
    expect(decideParts(rows, new Set(["v1", "v2"]), 3)).toEqual({ start: [], done: 0 });
  });

  it("a completed part frees its seat for the next; all completed: the stitch", () => {
    const rows = [row("v0", "completed", chunk(0)), row("v1", "processing", chunk(1)), row("a", "queued", { role: "audio" })];
    expect(decideParts(rows, new Set(["v0", "v1"]), 2)).toEqual({ start: ["a"], done: 1 });
    expect(decideParts(rows.map((r) => ({ ...r, status: "completed" as const })), new Set(), 2)).toEqual({ stitch: true });
  });

  it("fails with the first failed part's code, its message naming the chunk; a part cancelled unasked is an interruption", () => {
    const failed = [row("v0", "completed", chunk(0)), row("v1", "failed", chunk(1), {}, { code: "corrupt_media", message: "the video is damaged at 3 s" })];
    expect(decideParts(failed, new Set(), 2)).toEqual({ fail: { code: "corrupt_media", message: "encoding chunk 2 of 2: the video is damaged at 3 s" } });
    const cancelled = [row("a", "cancelled", { role: "audio" })];
    expect(decideParts(cancelled, new Set(), 2)).toEqual({ fail: { code: "processing_interrupted", message: "encoding the audio was stopped before it ended; create the job again" } });
  });
});

describe("the stitch and the fan-out's timings", () => {
  const plan: FanoutPlan = { frames: 100, fps: { num: 25, den: 1 }, video: { index: 0, width: 320, height: 180 }, chunks: [0, 30, 60].map((first, i, all) => ({ first, frames: (all[i + 1] ?? 100) - first })), audio: true, source: { size: 1000, width: 320, height: 180, duration: 4 } };

  it("asks the stitch for every chunk, the audio, and a keyframe where each chunk after the first begins", () => {
    expect(stitchPart(plan)).toEqual({ role: "stitch", videoParts: 3, audio: true, frames: 100, fps: { num: 25, den: 1 }, seams: [30, 60], source: plan.source });
  });

  it("counts the chunks, the most parts at once, the longest chunk and the parts' span", () => {
    const rows = [
      row("v0", "completed", chunk(0), { startedAt: 0, completedAt: 100 }),
      row("v1", "completed", chunk(1), { startedAt: 10, completedAt: 300 }),
      row("v2", "completed", chunk(2), { startedAt: 100, completedAt: 250 }),
      row("a", "completed", { role: "audio" }, { startedAt: 20, completedAt: 50 }),
    ];
    // At 20–50 three run at once (v0, v1, a); v2 starts as v0 ends.
    expect(fanoutTimings(rows, 42.4)).toEqual({ chunks: 3, seats: 3, longestChunkMs: 290, partsMs: 300, stitchMs: 42 });
    expect(fanoutTimings(rows).stitchMs).toBeNull();
  });
});

describe("what fans out, and where the stitch reads", () => {
  it("fans out compressVideo in x264 or x265 at a constant quality into MP4, and every videoAdaptive; no other type", () => {
    expect(mayFanOut("compressVideo", { codec: "h264" })).toBe(true);
    expect(mayFanOut("compressVideo", { codec: "h264", targetBitrate: "2M" })).toBe(false);
    expect(mayFanOut("compressVideo", { codec: "vp9" })).toBe(false);
    expect(mayFanOut("videoAdaptive", {})).toBe(true);
    expect(mayFanOut("videoClip", {})).toBe(false);
  });

  it("reads the chunks, the audio, then a videoAdaptive's copied top rendition when its plan says readTop; nothing past them", () => {
    const top = { name: "1080p", width: 1920, height: 1080, frameRate: 30, codecs: "avc1.640028,mp4a.40.2", bandwidth: 1, averageBandwidth: 1, mediaSize: 1, playlistSize: 1, segments: [6, 6] };
    const base: FanoutPlan = { frames: 100, fps: { num: 25, den: 1 }, video: { index: 0, width: 1920, height: 1080 }, chunks: [{ first: 0, frames: 50 }, { first: 50, frames: 50 }], audio: true, source: { size: 1, width: 1920, height: 1080, duration: 4 } };
    const ladder = stitchPart({ ...base, ladder: { top, preroll: 25, readTop: true, format: "mp4", hasAudio: true } });
    expect([0, 1, 2, 3, 4].map((n) => stitchInputKey("job_x", ladder, n))).toEqual(["outputs/job_x-v00/part.mp4", "outputs/job_x-v01/part.mp4", "outputs/job_x-a/audio.m4a", "outputs/job_x/stream/1080p.mp4", undefined]);
    expect(stitchInputKey("job_x", stitchPart({ ...base, ladder: { top, preroll: 25, readTop: false, format: "mp4", hasAudio: true } }), 3)).toBeUndefined();
    expect(stitchInputKey("job_x", stitchPart(base), 3)).toBeUndefined();
  });
});

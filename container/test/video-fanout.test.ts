// The plan a compressVideo attempt offered a fan-out answers with (docs/fanout.md): only a
// constant-rate video whose container states its frames, long enough, cut on frame numbers
// into enough chunks for the seats and none under a second.
import { describe, expect, it } from "vitest";
import type { FanoutOffer } from "../../src/contract/fanout.ts";
import { planFanout } from "../src/processors/compress-video-parts.ts";
import type { MediaProbe } from "../src/tools/ffprobe.ts";

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

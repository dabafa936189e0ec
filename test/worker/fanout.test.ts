// Chunked encoding across seats (docs/fanout.md), end to end with the local processor: a pro
// organization's compressVideo of a long enough input is planned, encoded in chunks by parts
// with runners and attempts of their own, stitched and checked; the result is one video with
// the source's frames, a keyframe at every seam, the audio once, and nothing of the parts
// left in D1 or R2. The worker project's TUNABLES_OVERRIDE (vitest.config.ts) splits inputs
// from 6 s in 1 s chunks.
import { describe, expect, it } from "vitest";
import { call, media, newKey, runnerState, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

interface Probe {
  streams: { codec_type: string; codec_name: string; nb_frames?: string; duration?: string; width?: number }[];
  packets?: { stream_index: number; pts: number; dts: number; flags: string }[];
}

/** ffprobe's streams and the video's packets of a job's output, fetched through its signed link. */
async function probeOutput(link: string): Promise<Probe> {
  const bytes = await (await workerFetch(link)).arrayBuffer();
  return (await (await fetch(media("/probe?packets"), { method: "POST", body: bytes })).json()) as Probe;
}

/** Every row and R2 object of the job's parts (ids `<job>-v..`, `<job>-a`). */
async function partsLeft(jobId: string): Promise<{ rows: number; objects: string[] }> {
  const rows = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE parent_job_id = ? OR id LIKE ?").bind(jobId, `${jobId}-%`).first<{ n: number }>();
  const listed = await testEnv.OUTPUTS.list({ prefix: `outputs/${jobId}-` });
  return { rows: rows!.n, objects: listed.objects.map((o) => o.key) };
}

/** The parts are removed just after the job's end is recorded (finishJob): polled, with a deadline. */
async function noPartsLeft(jobId: string): Promise<{ rows: number; objects: string[] }> {
  await waitFor(async () => {
    const left = await partsLeft(jobId);
    return left.rows === 0 && left.objects.length === 0 ? true : undefined;
  }, `the parts of ${jobId} to be removed`, 30_000).catch(() => undefined);
  return partsLeft(jobId);
}

const video = (seconds: number, extra = "") => media(`/video?w=320&h=180&d=${seconds}${extra}`);

describe("chunked encoding of compressVideo", () => {
  it("encodes a pro organization's 6 s video in chunks on several seats, joins them with the source's frames and a keyframe at each seam, and leaves no part behind", async () => {
    const { key } = await newKey({ plan: "pro" });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compressVideo", params: { url: video(6), quality: "low" } } });
    expect(created.status).toBe(201);
    const { job, seen } = await waitForJob(key, created.json.id, undefined, 120_000);
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    // Progress never goes back, from the parts to the stitch.
    const progress = seen.map((j: { progress: number | null }) => j.progress ?? 0);
    for (let i = 1; i < progress.length; i++) expect(progress[i], `${progress}`).toBeGreaterThanOrEqual(progress[i - 1]!);

    // 6 s at 25 fps: 150 frames, cut into 6 chunks of 25 on the pro plan's 4 seats.
    const fanout = job.timings.fanout;
    expect(fanout).toMatchObject({ chunks: 6, stitchMs: expect.any(Number) });
    expect(fanout.seats).toBeGreaterThanOrEqual(2);
    expect(fanout.seats).toBeLessThanOrEqual(4);
    expect(fanout.longestChunkMs).toBeGreaterThan(0);
    expect(fanout.partsMs).toBeGreaterThanOrEqual(fanout.longestChunkMs);

    const probe = await probeOutput(job.result.url);
    const videoStream = probe.streams.find((s) => s.codec_type === "video")!;
    const audioStream = probe.streams.find((s) => s.codec_type === "audio")!;
    expect(videoStream).toMatchObject({ codec_name: "h264", width: 320, nb_frames: "150" });
    expect(audioStream.codec_name).toBe("aac");
    expect(Number(audioStream.duration)).toBeCloseTo(6, 0);
    const packets = probe.packets!.filter((p) => p.stream_index === Number((videoStream as { index?: number }).index ?? 0));
    expect(packets).toHaveLength(150);
    for (const seam of [25, 50, 75, 100, 125]) expect(packets[seam]!.flags, `frame ${seam}`).toContain("K");
    for (let i = 1; i < packets.length; i++) expect(packets[i]!.dts).toBeGreaterThan(packets[i - 1]!.dts);
    expect(job.result).toMatchObject({ width: 320, height: 180, format: "mp4", codec: "h264", source: { width: 320, height: 180, duration: 6 } });

    // The parts are gone, and were never the organization's to see.
    expect(await noPartsLeft(job.id)).toEqual({ rows: 0, objects: [] });
    const listed = await call("GET", "/v1/jobs?limit=100", { key });
    expect(listed.json.data.map((j: { id: string }) => j.id)).toEqual([job.id]);
    expect((await call("GET", `/v1/jobs/${job.id}-v00`, { key })).status).toBe(404);
  });

  it("has each chunk read only its part of an input served by range, not the whole file", async () => {
    const { key } = await newKey({ plan: "pro" });
    const tag = `fanout-ranges-${Date.now()}`;
    // 16 s of 640×360 under grain: about 55 MB, cut into 16 chunks; no audio, whose one part reads it all.
    const shape = "w=640&h=360&d=16&g=25&n=60";
    const size = (await (await fetch(media(`/video?${shape}`))).arrayBuffer()).byteLength;
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compressVideo", params: { url: media(`/video?${shape}&ranges=${tag}`), quality: "low", stripAudio: true } } });
    const { job } = await waitForJob(key, created.json.id, undefined, 120_000);
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    expect(job.timings.fanout.chunks).toBe(16);
    // Whole reads would serve 17 files' worth (the plan's probe and each chunk). Each part
    // reads the processor's first 2 MiB (with the index), then its chunk's GOPs, each read
    // rounded up by the processor's windows (container/src/config.ts INPUT_*): about a
    // quarter of a file each here, a small share of a real one.
    const { bytes } = (await (await fetch(media(`/served?tag=${tag}`))).json()) as { bytes: number };
    expect(bytes).toBeGreaterThan(size * 0.9);
    expect(bytes).toBeLessThan(size * 17 * 0.35);
  }, 240_000);

  it("encodes on one seat on the free plan (maxFanout 1), and under the plan's length", async () => {
    const free = await newKey({ plan: "free" });
    const pro = await newKey({ plan: "pro" });
    const long = await call("POST", "/v1/jobs", { key: free.key, body: { type: "compressVideo", params: { url: video(6), quality: "low" } } });
    const short = await call("POST", "/v1/jobs", { key: pro.key, body: { type: "compressVideo", params: { url: video(4), quality: "low" } } });
    for (const [key, created] of [[free.key, long], [pro.key, short]] as const) {
      const { job } = await waitForJob(key, created.json.id, undefined, 120_000);
      expect(job.status).toBe("completed");
      expect(job.timings.fanout).toBeUndefined();
      expect(await noPartsLeft(job.id)).toEqual({ rows: 0, objects: [] });
    }
  });

  it("fails the job with the failing chunk's error when the input is cut off after its index, and removes every part", async () => {
    const { key } = await newKey({ plan: "pro" });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compressVideo", params: { url: video(7, "&cut=0.5"), quality: "low" } } });
    const { job } = await waitForJob(key, created.json.id, undefined, 120_000);
    expect(job.status).toBe("failed");
    expect(job.error.message).toMatch(/^encoding chunk \d+ of \d+: /);
    expect(await noPartsLeft(job.id)).toEqual({ rows: 0, objects: [] });
  });

  it("a cancel while the parts run stops them and removes them", async () => {
    const { key } = await newKey({ plan: "pro" });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compressVideo", params: { url: video(8), quality: "high" } } });
    const id = created.json.id as string;
    await waitFor(async () => ((await runnerState(id))?.phase === "fanned" ? true : undefined), "the job to fan out", 60_000);
    expect((await call("POST", `/v1/jobs/${id}/cancel`, { key })).status).toBe(200);
    expect(await noPartsLeft(id)).toEqual({ rows: 0, objects: [] });
    expect(await runnerState(`${id}-v00`)).toBeUndefined();
    expect(await runnerState(id)).toBeUndefined();
  });
});

/** A playlist's text; a link as a player outside the Worker reaches it (at the relay). */
const text = async (link: string) => new TextDecoder().decode(await (await workerFetch(link)).arrayBuffer());
const outside = (link: string) => `${testEnv.PUBLIC_BASE_URL}${new URL(link).pathname}`;

/** A rendition's segments' seconds, from its playlist. */
const segmentSeconds = (playlist: string) => [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));

// Each job below is seven or more parts and a stitch on the local processor's seats, which the
// whole suite's other files share: minutes when the two cores are busy, not the default minute.
describe("videoAdaptive's renditions encoded in chunks", () => {
  it("publishes the copied top rendition playable, encodes the others in chunks cut where segments begin, only adds to the master playlist, and makes the MP4 and DASH from the copy", async () => {
    const { key } = await newKey({ plan: "pro" });
    // 8 s of 320×180 H.264 at 300 kbit/s with a keyframe every 2 s, and AAC: the 180p rung is a copy.
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "videoAdaptive", params: { url: media("/video?w=320&h=180&d=8&g=50&b=300K"), segmentDuration: 2, renditions: [{ height: 144 }, { height: 180 }], mp4: true, dash: true } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    const playing = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${id}`, { key });
      return res.json.playableAt ? res.json : undefined;
    }, "the job to be playable", 200_000);
    const early = { master: await text(playing.playable.url), top: await text(new URL("180p.m3u8", playing.playable.url).href) };
    expect(early.master).not.toContain("144p.m3u8");

    const { job } = await waitForJob(key, id, undefined, 120_000);
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    // 200 frames in 2 s segments: a chunk per segment (the worker tests' chunks are 1 s), the 180p rung not among them.
    expect(job.timings.fanout).toMatchObject({ chunks: 4, stitchMs: expect.any(Number) });
    expect(Date.parse(job.playableAt)).toBeLessThan(Date.parse(job.completedAt));

    // The master only grew: the copy's line as it was, the 144p one added; the copy's playlist unchanged.
    const master = await text(job.result.url);
    const earlyLines = early.master.trim().split("\n");
    expect(master.trim().split("\n").filter((line) => !earlyLines.includes(line))).toEqual([expect.stringMatching(/^#EXT-X-STREAM-INF:.*RESOLUTION=256x144/), "144p.m3u8"]);
    expect(await text(new URL("180p.m3u8", job.result.url).href)).toBe(early.top);

    // The joined 144p rendition: every frame, a keyframe where each segment begins, its segments the copy's.
    const low = await text(new URL("144p.m3u8", job.result.url).href);
    expect(segmentSeconds(low)).toEqual(segmentSeconds(early.top));
    const probe = await probeOutput(new URL("144p.mp4", job.result.url).href);
    const packets = probe.packets!.filter((p) => p.stream_index === 0);
    expect(packets).toHaveLength(200);
    for (const seam of [50, 100, 150]) expect(packets[seam]!.flags, `frame ${seam}`).toContain("K");
    expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}:${s.width ?? ""}`)).toEqual(["video:h264:256", "audio:aac:"]);
    expect(job.result.renditions.map((r: { width: number; height: number }) => `${r.width}x${r.height}`)).toEqual(["256x144", "320x180"]);

    // The MP4 download and the DASH manifest are made from the copy, read back by the stitch.
    const mp4 = await probeOutput(job.result.mp4.url);
    expect(mp4.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 320, nb_frames: "200" });
    expect((await text(job.result.dash.url)).match(/<Representation /g)).toHaveLength(3);

    // A player plays the whole ladder from the link alone.
    const played = (await (await fetch(media(`/play?url=${encodeURIComponent(outside(job.result.url))}`))).json()) as { code: number; frames: number; stderr: string };
    expect(played, played.stderr).toMatchObject({ code: 0, frames: 200 });
    expect(await noPartsLeft(id)).toEqual({ rows: 0, objects: [] });
  }, 420_000);

  it("encodes every rendition in chunks when the top cannot be copied, and makes the DASH manifest and the MP4 from the joined renditions", async () => {
    const { key } = await newKey({ plan: "pro" });
    // 1 Mbit/s is over twice the 180p rung's 400 kbit/s: the top rendition is encoded too.
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "videoAdaptive", params: { url: media("/video?w=320&h=180&d=6&b=1M"), segmentDuration: 2, renditions: [{ height: 144 }, { height: 180 }], dash: true, mp4: true } },
    });
    const { job } = await waitForJob(key, created.json.id, undefined, 120_000);
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    expect(job.timings.fanout.chunks).toBe(3);
    const master = await text(job.result.url);
    expect(master.match(/#EXT-X-STREAM-INF/g)).toHaveLength(2);
    for (const name of ["144p", "180p"]) {
      const probe = await probeOutput(new URL(`${name}.mp4`, job.result.url).href);
      const packets = probe.packets!.filter((p) => p.stream_index === 0);
      expect(packets, name).toHaveLength(150);
      // A keyframe at each 2 s and nowhere else: x264 adds none between (its interval is a segment's frames).
      expect(packets.flatMap((p, i) => (p.flags.includes("K") ? [i] : [])), name).toEqual([0, 50, 100]);
    }
    const mp4 = await probeOutput(job.result.mp4.url);
    expect(mp4.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 320, nb_frames: "150" });
    const mpd = await text(job.result.dash.url);
    expect(mpd.match(/<Representation /g)).toHaveLength(3);
    expect(await noPartsLeft(job.id)).toEqual({ rows: 0, objects: [] });
  }, 240_000);
});

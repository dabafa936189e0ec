// Chunked encoding across seats on real containers (docs/fanout.md): a fanned-out encode runs
// its parts on both instances of a two-instance pool, one chunk's container is killed while
// it encodes, and the job still completes with every frame: the lost chunk ran again alone,
// the other parts once. A videoAdaptive publishes its copied top rendition, encodes the other
// in chunks on both instances, and its stitch reads the copy back for the MP4. Its own tier (wrangler dev with containers), with fan-out from 6 s
// in 1 s chunks, so the other tier's jobs keep encoding on one seat.
// `npm run test:containers` (docs/deploy.md: the containers tier).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { api, appContainers, createJob, dockerCli, download, ffprobe, startTier, until, waitForEnd, type Tier } from "./tier.ts";

let tier: Tier;

beforeAll(async () => {
  tier = await startTier({ sleepAfter: "30s", instances: 2, jobsPerInstance: 1, vars: { TUNABLES_OVERRIDE: JSON.stringify({ fanout: { minSeconds: 6, chunkSeconds: 1 } }) } });
});

afterAll(async () => {
  await tier?.stop();
});

describe("a fanned-out encode on containers", () => {
  it("runs its parts on both instances, and completes with every frame when one chunk's container is killed mid-encode", async () => {
    // Held half-way: the plan reads the index at the start; the chunks past the middle wait, encoding, for the release.
    const input = tier.hold("clip.mp4");
    onTestFinished(input.release);
    const id = await createJob(tier, "compress-video", input.url, { quality: "high" });
    // A chunk from the middle on reads past the held half: its ffmpeg runs, waiting for bytes, when the kill lands.
    const chunkAttempt = new RegExp(`${id}-(v0[2-5])\\.1`);
    const victim = await until("a later chunk's ffmpeg running in a container", async () => (await appContainers()).find((c) => c.processes.split("\n").some((line) => /\bffmpeg\b/.test(line) && chunkAttempt.test(line))), 180_000);
    const killed = chunkAttempt.exec(victim.processes)![1]!;
    await dockerCli("kill", victim.id);
    await until("the killed container to go", async () => !(await appContainers()).some((c) => c.id === victim.id), 60_000);
    input.release();
    const job = await waitForEnd(tier, id);
    expect(job.status, JSON.stringify((job as { error?: unknown }).error)).toBe("completed");

    const logs = tier.logs();
    const started = logs.filter((l) => l.message === "attempt started" && typeof l.job === "string" && (l.job as string).startsWith(`${id}-`));
    // Parts ran on both instances; the killed chunk had a second attempt, and no other part did.
    expect(new Set(started.map((l) => l.instance))).toEqual(new Set(["processor-0", "processor-1"]));
    const attemptsOf = (part: string) => started.filter((l) => l.job === part).length;
    expect(attemptsOf(`${id}-${killed}`)).toBeGreaterThanOrEqual(2);
    for (const part of ["v00", "v01", "v02", "v03", "v04", "v05", "a"].filter((p) => p !== killed)) expect(attemptsOf(`${id}-${part}`), part).toBe(1);
    expect((job as { timings: { fanout?: { chunks: number } } }).timings.fanout).toMatchObject({ chunks: 6 });

    // 6 s at 25 fps, every frame once; the audio once.
    const probe = await ffprobe(await download(job.result!.url as string));
    const video = probe.streams.find((s) => s.codec_type === "video") as { nb_frames?: string } | undefined;
    expect(video?.nb_frames).toBe("150");
    expect(probe.streams.filter((s) => s.codec_type === "audio")).toHaveLength(1);
    expect((await api(tier, "GET", "/v1/jobs?limit=100")).json.data.filter((j: { id: string }) => j.id.startsWith(`${id}-`))).toEqual([]);
  });
});

describe("a videoAdaptive's renditions in chunks on containers", () => {
  it("is playable from the copy first, encodes the other rendition's chunks on both instances, and makes the MP4 from the copy read back", async () => {
    // long.mp4: 120 s of 640×360 at about 1.8 Mbit/s, a keyframe every 10 s: a copy into a 1 Mbit/s 360p rung (at most twice it), 10 s segments.
    const id = await createJob(tier, "video-adaptive", `${tier.mediaUrl}/long.mp4`, { segmentDuration: 10, renditions: [{ height: 180 }, { height: 360, bitrate: "1M" }], mp4: true });
    const job = (await waitForEnd(tier, id)) as { status: string; error?: unknown; playableAt?: string; completedAt?: string; timings: { fanout?: { chunks: number } }; result?: Record<string, unknown> };
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    expect(Date.parse(job.playableAt!)).toBeLessThan(Date.parse(job.completedAt!));
    expect(job.timings.fanout).toMatchObject({ chunks: 12 });
    const started = tier.logs().filter((l) => l.message === "attempt started" && typeof l.job === "string" && (l.job as string).startsWith(`${id}-v`));
    expect(new Set(started.map((l) => l.instance))).toEqual(new Set(["processor-0", "processor-1"]));

    const master = job.result!.url as string;
    const low = await ffprobe(await download(new URL("180p.mp4", master).href));
    expect(low.streams.map((s) => `${s.codec_type}:${s.codec_name}:${s.width ?? ""}x${s.height ?? ""}`)).toEqual(["video:h264:320x180", "audio:aac:x"]);
    expect(Number(low.format.duration)).toBeCloseTo(120, 0);
    const mp4 = await ffprobe(await download((job.result!.mp4 as { url: string }).url));
    expect(mp4.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 640, height: 360 });
    expect((await api(tier, "GET", "/v1/jobs?limit=100")).json.data.filter((j: { id: string }) => j.id.startsWith(`${id}-`))).toEqual([]);
  });
});

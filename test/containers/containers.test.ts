// The production path on a real Docker engine: Worker -> Queue -> JobRunner -> a
// ProcessorContainer built from container/Dockerfile -> R2. Every job type, outputs
// probed (issue 26's too: a stream, a storyboard and a preview read through their signed
// links, AV1 with a text watermark); a container killed mid-job; cancel; an idle container
// stopping by itself.
// Every job must end as its work ends: its end pushed by the processor (not found by the
// runner's watchdog), its outputs uploaded (none copied by the runner), its phases adding
// up to its time; warm jobs on a container already running, with no retry and a start
// shorter than the cold one. The cold start is measured; no bound here is the machine's speed.
// `npm run test:containers` (docs/deploy.md: the containers tier).
import { mkdir, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { api, appContainers, breakPushPath, containerThatRan, createJob, dockerCli, download, encodingAttempt, fetchLink, ffprobe, howItEnded, imageMeta, jobRow, lumaAt, startTier, until, waitForEnd, type ApiJob, type Tier, runsJobFfmpeg } from "./tier.ts";

/** Small, so the idle test is quick; a container runs no job is only then asked to stop. */
const SLEEP_AFTER_S = 15;
/** The instance budget (max_instances) for this tier: small, so the burst test exceeds it 3×. */
const INSTANCES = 2;
/** How long the runner's watchdog lets a processor be silent before it asks (src/lib/tunables.ts): 45 s. */
const SILENCE_MS = TUNABLES.runner.heartbeatMs * TUNABLES.runner.silentHeartbeats;
/**
 * The most a job may take, after the processor's end, to be recorded completed. A pushed end
 * is a push and a check of R2 (well under a second here); an end the watchdog finds waits out
 * SILENCE_MS less at most one heartbeat (30 s). Far below that: it tells the two apart on a
 * loaded machine too (the proof of the push is `endHeard`).
 */
const REPORT_MS = 5_000;
const timings: Record<string, number> = {};
/** Each job's time, end to end (created → completed, the service's own clock) and by phase. */
const jobFigures: Record<string, Record<string, number | null>> = {};
let tier: Tier;

beforeAll(async () => {
  const start = Date.now();
  tier = await startTier({ sleepAfter: `${SLEEP_AFTER_S}s`, instances: INSTANCES, jobsPerInstance: 1 });
  timings["wrangler dev ready (image built)"] = Date.now() - start;
});

afterAll(async () => {
  await tier?.stop();
  console.log("containers tier timings (ms):", JSON.stringify(timings, null, 2));
  console.log("containers tier jobs (ms, created → completed and by phase):");
  console.table(jobFigures);
  await mkdir("test-output", { recursive: true });
  await writeFile("test-output/containers-figures.json", JSON.stringify({ timings, jobs: jobFigures }, null, 2));
});

/** Created → completed by the service's own clock. */
const totalMs = (job: ApiJob) => Date.parse(job.completedAt!) - Date.parse(job.createdAt);
const phase = (job: ApiJob, name: string) => job.timings[name] ?? 0;

/**
 * The job ended as its work did: the processor pushed its end (`endHeard`, not the
 * runner's watchdog asking after a silence), uploaded its outputs (none copied by the
 * runner, no broken push path), and its phases add up to its time, the last of them, the
 * wait for the end to be recorded, under REPORT_MS. Records its figures under `label`.
 */
async function endedAsItHappened(label: string, job: ApiJob): Promise<void> {
  const { finished, problems } = await howItEnded(tier, job.id);
  jobFigures[label] = { totalMs: totalMs(job), ...job.timings };
  expect(problems.map((p) => p.message), `${label}: did not end as it happened`).toEqual([]);
  expect(finished.endHeard, `${label}: the runner heard of its end by ${String(finished.endHeard)}`).toBe("push");
  const phases = Object.values(job.timings).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
  expect(Math.abs(totalMs(job) - phases), `${label}: phases ${JSON.stringify(job.timings)} against ${totalMs(job)} ms`).toBeLessThanOrEqual(5);
  expect(job.timings.reportMs, `${label}: ${JSON.stringify(job.timings)}`).toBeLessThanOrEqual(REPORT_MS);
}

/** Creates a job, waits for it to complete as it happened, and records how long it took. */
async function completedJob(label: string, type: string, input: string, options: Record<string, unknown>): Promise<ApiJob> {
  const start = Date.now();
  const id = await createJob(tier, type, input, options);
  const job = await waitForEnd(tier, id);
  timings[label] = Date.now() - start;
  expect(job.error, `${label}: ${JSON.stringify(job.error)}`).toBeUndefined();
  expect(job.status).toBe("completed");
  await endedAsItHappened(label, job);
  return job;
}

const completed = async (label: string, type: string, input: string, options: Record<string, unknown>) => (await completedJob(label, type, input, options)).result!;

/** The app container running ffmpeg, once there is one. */
const encoding = () => until("ffmpeg running in a container", async () => (await appContainers()).find((c) => runsJobFfmpeg(c.processes)), 120_000);

describe("every job type in a container", () => {
  it("compress-image: WebP at the asked width, on a cold instance whose start the job's startMs holds", async () => {
    const job = await completedJob("compress-image (cold)", "compress-image", `${tier.mediaUrl}/photo.jpg`, { quality: 70, format: "webp", maxWidth: 800 });
    const meta = await imageMeta(await download(job.result!.url));
    expect(meta).toMatchObject({ format: "webp", width: 800, height: 534 });
    // The container started for this job: its start is a phase of the job, not lost time.
    timings["cold start (startMs of the first job)"] = phase(job, "startMs");
    expect(phase(job, "startMs")).toBeGreaterThan(phase(job, "fetchInputMs"));
  });

  it("compress-pdf: a smaller PDF with the same page count", async () => {
    const input = await tier.fixture("doc.pdf");
    const result = await completed("compress-pdf", "compress-pdf", `${tier.mediaUrl}/doc.pdf`, { quality: "low" });
    const output = await download(result.url);
    expect(output.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(result.pages).toBe(1);
    expect(output.length).toBeLessThan(input.length);
  });

  it("compress-video: H.264 MP4 at the asked width, with audio", async () => {
    const result = await completed("compress-video", "compress-video", `${tier.mediaUrl}/clip.mp4`, { quality: "low", maxWidth: 160 });
    const probed = await ffprobe(await download(result.url));
    const video = probed.streams.find((s) => s.codec_type === "video");
    expect(video).toMatchObject({ codec_name: "h264", width: 160, height: 90 });
    expect(probed.streams.some((s) => s.codec_type === "audio")).toBe(true);
  });

  it("video-thumbnail: a PNG frame of the asked size", async () => {
    const result = await completed("video-thumbnail", "video-thumbnail", `${tier.mediaUrl}/clip.mp4`, { timestamp: 2, format: "png", width: 160 });
    expect(await imageMeta(await download(result.url))).toMatchObject({ format: "png", width: 160, height: 90 });
  });

  it("video-thumbnail on a warm instance takes a ready ffprobe and a ready ffmpeg, which the processor then replaces", async () => {
    /** Per app container, the pids of the processes waiting for jobs: ffprobe on its tool relay route, ffmpeg writing under `.ready/`. */
    const waiting = async () =>
      new Map(
        (await appContainers()).map((c) => [
          c.id,
          c.processes
            .split("\n")
            .filter((line) => /\bffprobe\b.*http:\/\/127\.0\.0\.1:/.test(line) || (/\bffmpeg\b/.test(line) && line.includes("/.ready/")))
            .map((line) => line.trim().split(/\s+/)[0]!),
        ]),
      );
    // Two of each on every instance that runs (READY_PROCESSES).
    const before = await until("ready processes waiting", async () => {
      const now = await waiting();
      return now.size > 0 && [...now.values()].every((pids) => pids.length === 4) && now;
    }, 60_000);
    const result = await completed("video-thumbnail (warm, ready processes)", "video-thumbnail", `${tier.mediaUrl}/clip.mp4`, { timestamp: 3, format: "jpg" });
    expect(await imageMeta(await download(result.url))).toMatchObject({ format: "jpeg", width: 320, height: 180 });
    // On the instance that ran it, two of the four were taken, and two new ones wait in their place.
    await until("the taken ones replaced", async () => {
      const now = await waiting();
      return [...before].some(([id, pids]) => {
        const current = now.get(id) ?? [];
        return current.length === 4 && pids.filter((pid) => !current.includes(pid)).length === 2;
      });
    }, 30_000);
  });

  it("extract-audio: an MP3 as long as the clip", async () => {
    const result = await completed("extract-audio", "extract-audio", `${tier.mediaUrl}/clip.mp4`, {});
    const probed = await ffprobe(await download(result.url));
    expect(probed.streams).toEqual([expect.objectContaining({ codec_type: "audio", codec_name: "mp3" })]);
    expect(Number(probed.format.duration)).toBeCloseTo(6, 0);
  });

  it("video-extraction: audio and three JPEG frames", async () => {
    const result = await completed("video-extraction", "video-extraction", `${tier.mediaUrl}/clip.mp4`, { frames: { mode: "count", count: 3, width: 160 } });
    expect((await ffprobe(await download(result.audio.url))).streams[0]).toMatchObject({ codec_name: "mp3" });
    expect(result.frames).toHaveLength(3);
    for (const frame of result.frames) expect(await imageMeta(await download(frame.url))).toMatchObject({ format: "jpeg", width: 160, height: 90 });
  });

  it("video-adaptive: the master playlist through its signed link, a variant and a byte range of its fMP4 by relative URI, the rendition H.264 at the size the result says", async () => {
    const result = await completed("video-adaptive", "video-adaptive", `${tier.mediaUrl}/clip.mp4`, { segmentDuration: 2 });
    // 320×180 is below the default ladder's lowest rung: one rendition at the input's own size.
    expect(result.renditions.map((r: { width: number; height: number }) => `${r.width}x${r.height}`)).toEqual(["320x180"]);
    const master = await fetchLink(result.url);
    expect(master.type).toBe("application/vnd.apple.mpegurl");
    const lines = master.bytes.toString("utf8").split("\n");
    const variants = lines.flatMap((line, i) => (line.startsWith("#EXT-X-STREAM-INF:") ? [{ resolution: /RESOLUTION=(\d+x\d+)/.exec(line)?.[1], uri: lines[i + 1]! }] : []));
    expect(variants).toEqual([{ resolution: "320x180", uri: expect.stringMatching(/\.m3u8$/) }]);

    const playlistUrl = new URL(variants[0]!.uri, result.url).href;
    const playlist = (await fetchLink(playlistUrl)).bytes.toString("utf8");
    const map = /#EXT-X-MAP:URI="([^"]+)",BYTERANGE="(\d+)@(\d+)"/.exec(playlist);
    const segments = [...playlist.matchAll(/#EXTINF:([\d.]+),\n#EXT-X-BYTERANGE:(\d+)@(\d+)\n([^\n#]+)/g)];
    expect(map, playlist).not.toBeNull();
    // 6 s in 2-s segments, adding up to the stream's duration.
    expect(segments).toHaveLength(3);
    expect(segments.reduce((sum, s) => sum + Number(s[1]), 0)).toBeCloseTo(result.duration, 1);
    const init = await fetchLink(new URL(map![1]!, playlistUrl).href, [Number(map![3]), Number(map![2])]);
    const first = await fetchLink(new URL(segments[0]![4]!, playlistUrl).href, [Number(segments[0]![3]), Number(segments[0]![2])]);
    const probed = await ffprobe(Buffer.concat([init.bytes, first.bytes]));
    expect(probed.streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", width: result.renditions[0].width, height: result.renditions[0].height });
    expect(probed.streams.some((s) => s.codec_type === "audio")).toBe(true);
  });

  it("video-storyboard: the VTT through its signed link, the sprite it names by relative URI, every cue inside it", async () => {
    const result = await completed("video-storyboard", "video-storyboard", `${tier.mediaUrl}/clip.mp4`, { count: 6, width: 80, columns: 3 });
    expect(result.tile).toMatchObject({ width: 80, height: 45, columns: 3, rows: 2, count: 6 });
    const vtt = await fetchLink(result.url);
    expect(vtt.type).toBe("text/vtt");
    const text = vtt.bytes.toString("utf8");
    expect(text.startsWith("WEBVTT")).toBe(true);
    const cues = [...text.matchAll(/^(\S+)#xywh=(\d+),(\d+),(\d+),(\d+)$/gm)].map((m) => ({ file: m[1]!, xywh: m.slice(2).map(Number) as [number, number, number, number] }));
    expect(cues).toHaveLength(6);
    expect(new Set(cues.map((c) => c.file))).toEqual(new Set(["sprite.jpg"]));
    const sprite = await fetchLink(new URL("sprite.jpg", result.url).href);
    expect(sprite.type).toBe("image/jpeg");
    expect(sprite.bytes.length).toBe(result.sprite.size);
    const meta = await imageMeta(sprite.bytes);
    expect(meta).toMatchObject({ format: "jpeg", width: result.sprite.width, height: result.sprite.height });
    expect([meta.width, meta.height]).toEqual([3 * 80, 2 * 45]);
    for (const { xywh: [x, y, w, h] } of cues) {
      expect([w, h]).toEqual([80, 45]);
      expect(x + w <= meta.width! && y + h <= meta.height!, `cue at ${x},${y} in a ${meta.width}×${meta.height} sprite`).toBe(true);
    }
  });

  it("video-preview: an animated GIF of the asked size and frames", async () => {
    const result = await completed("video-preview", "video-preview", `${tier.mediaUrl}/clip.mp4`, { format: "gif", start: 1, duration: 2, width: 160, fps: 10 });
    expect(result).toMatchObject({ format: "gif", width: 160, height: 90, frames: 20, frameRate: 10 });
    const meta = await imageMeta(await download(result.url));
    expect(meta).toMatchObject({ format: "gif", width: 160, pages: 20, loop: 0 });
    expect(meta.pageHeight ?? meta.height).toBe(90);
  });

  it("compress-video: AV1 (libsvtav1) with a text watermark drawn in the asked corner (drawtext and the image's font)", async () => {
    const options = { codec: "av1", quality: "low", maxWidth: 256 };
    const result = await completed("compress-video av1 + watermark", "compress-video", `${tier.mediaUrl}/clip.mp4`, { ...options, watermark: { text: "© tier", position: "bottom-right", size: 0.15, opacity: 0.8 } });
    expect(result).toMatchObject({ codec: "av1", width: 256, height: 144, format: "mp4" });
    const output = await download(result.url);
    const probed = await ffprobe(output);
    expect(probed.streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "av1", width: 256, height: 144 });
    expect(probed.streams.some((s) => s.codec_type === "audio")).toBe(true);
    // The same encode without the watermark: the frames differ in the bottom-right corner,
    // where the text is, far more than in the other corners (the encoder's own noise).
    const plain = await completed("compress-video av1", "compress-video", `${tier.mediaUrl}/clip.mp4`, options);
    const [marked, unmarked] = await Promise.all([lumaAt(output, 3), lumaAt(await download(plain.url), 3)]);
    // Each corner a quarter of the width and height (64×36; the text is about 65×20 there).
    const [w, h] = [256, 144];
    expect([marked.length, unmarked.length]).toEqual([w * h, w * h]);
    const differs = (x0: number, y0: number) => {
      let sum = 0;
      for (let y = y0; y < y0 + h / 4; y++) for (let x = x0; x < x0 + w / 4; x++) sum += Math.abs(marked[y * w + x]! - unmarked[y * w + x]!);
      return sum / ((w / 4) * (h / 4));
    };
    const corners = { bottomRight: differs((3 * w) / 4, (3 * h) / 4), topLeft: differs(0, 0), topRight: differs((3 * w) / 4, 0), bottomLeft: differs(0, (3 * h) / 4) };
    expect(corners.bottomRight, JSON.stringify(corners)).toBeGreaterThan(3 * Math.max(corners.topLeft, corners.topRight, corners.bottomLeft, 0.5));
  });

  it(`${3 * INSTANCES} jobs at once on ${INSTANCES} instances: all complete, never more containers than the budget`, async () => {
    const start = Date.now();
    const ids = await Promise.all(
      Array.from({ length: 3 * INSTANCES }, (_, i) => createJob(tier, "compress-image", `${tier.mediaUrl}/photo.jpg`, { quality: 60 + i, format: "webp", maxWidth: 400 })),
    );
    let peak = 0;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        peak = Math.max(peak, (await appContainers()).length);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const jobs = await Promise.all(ids.map((id) => waitForEnd(tier, id)));
    done = true;
    await sampling;
    timings[`${3 * INSTANCES} compress-image jobs at once`] = Date.now() - start;
    expect(jobs.map((j) => j.status)).toEqual(ids.map(() => "completed"));
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(INSTANCES);
    for (const [i, job] of jobs.entries()) await endedAsItHappened(`burst ${i + 1}/${jobs.length}`, job);
  });

  it("warm jobs, one at a time: each runs in a container already running, on its first attempt, and starts faster than the cold one did", async () => {
    const cold = timings["cold start (startMs of the first job)"];
    const warm: [string, string, string, Record<string, unknown>][] = [
      ["compress-image", "compress-image", "photo.jpg", { quality: 70, format: "webp", maxWidth: 800 }],
      ["video-thumbnail", "video-thumbnail", "clip.mp4", { timestamp: 2, format: "png", width: 160 }],
      ["extract-audio", "extract-audio", "clip.mp4", {}],
      ["compress-pdf", "compress-pdf", "doc.pdf", { quality: "low" }],
    ];
    for (const [label, type, input, options] of warm) {
      const running = new Set((await appContainers()).map((c) => c.id));
      expect(running.size, `${label}: no warm container`).toBeGreaterThan(0);
      // Its end pushed and recorded within REPORT_MS (completedJob).
      const job = await completedJob(`${label} (warm)`, type, `${tier.mediaUrl}/${input}`, options);
      // Its processor was one already running: the pool started no container for it.
      expect(running, `${label}: ran in a container started for it`).toContain(await containerThatRan(`${job.id}.1`));
      expect(phase(job, "retriesMs"), `${label}: ${JSON.stringify(job.timings)}`).toBe(0);
      if (cold !== undefined) expect(phase(job, "startMs"), `${label}: against a cold start of ${cold} ms`).toBeLessThan(cold);
    }
  });

  it("a push path that breaks: the processor finds out on its first failed push and says so, and the runner then polls each job instead of waiting out a silence", async () => {
    const warm = await appContainers();
    expect(warm.length).toBeGreaterThan(0);
    for (const c of warm) await breakPushPath(c.name);
    try {
      // The first job goes to a processor that last found its path working: its pushes fail,
      // it checks the path again and finds it broken; the runner hears of the end by asking.
      const first = await waitForEnd(tier, await createJob(tier, "compress-image", `${tier.mediaUrl}/photo.jpg`, { quality: 70, format: "webp", maxWidth: 400 }));
      expect(first.status).toBe("completed");
      expect((await howItEnded(tier, first.id)).finished.endHeard).toBe("check");
      jobFigures["push path broken: first job"] = { totalMs: totalMs(first), ...first.timings };
      // The next job's start is answered with the broken path: the runner polls it, and it
      // ends within a poll and the copy of its output, not a silence.
      const start = Date.now();
      const next = await waitForEnd(tier, await createJob(tier, "compress-image", `${tier.mediaUrl}/photo.jpg`, { quality: 71, format: "webp", maxWidth: 400 }));
      timings["push path broken: next job, created → completed seen"] = Date.now() - start;
      jobFigures["push path broken: next job"] = { totalMs: totalMs(next), ...next.timings };
      expect(next.status).toBe("completed");
      const { finished, problems } = await howItEnded(tier, next.id);
      expect(finished).toMatchObject({ endHeard: "check", pushBroken: true });
      expect(problems.map((p) => p.message)).toEqual(expect.arrayContaining([expect.stringMatching(/cannot push/), expect.stringMatching(/copying it/)]));
      expect(next.timings.reportMs).toBeLessThan(SILENCE_MS / 3);
      expect(totalMs(next)).toBeLessThan(SILENCE_MS);
    } finally {
      for (const c of warm) await breakPushPath(c.name, true).catch(() => undefined);
    }
  });

  it("idle instances stop after CONTAINER_SLEEP_AFTER once their jobs are done", async () => {
    await until("no app container left running", async () => (await appContainers()).length === 0, (SLEEP_AFTER_S + 60) * 1000, 1000);
  });
});

describe("failures and control", () => {
  it("a container killed mid-job: the job completes on a later attempt", async () => {
    const start = Date.now();
    // Its input held half-way (Tier.hold): still encoding when the kill lands, on any machine.
    const input = tier.hold("clip.mp4");
    onTestFinished(input.release);
    const id = await createJob(tier, "compress-video", input.url, { codec: "h265", maxWidth: 320 });
    const victim = await encodingAttempt(`${id}.1`);
    await dockerCli("kill", victim.id);
    await until("the killed container to go", async () => !(await appContainers()).some((c) => c.id === victim.id), 60_000);
    // The next attempt reads the whole input (its download held until now, if it began).
    input.release();
    const job = await waitForEnd(tier, id);
    timings["compress-video, killed once"] = Date.now() - start;
    expect(job.status).toBe("completed");
    // The lost attempt is in retriesMs; the last one ended as it happened.
    await endedAsItHappened("compress-video, killed once", job);
    expect(phase(job, "retriesMs")).toBeGreaterThan(0);
    expect((await ffprobe(await download(job.result!.url))).streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "hevc", width: 320 });
    const row = await jobRow(tier, id);
    expect(row.status).toBe("completed");
    expect(row.attempt).toBeGreaterThanOrEqual(2);
  });

  it("cancel stops the work inside the container", async () => {
    const id = await createJob(tier, "compress-video", `${tier.mediaUrl}/long.mp4`, { quality: "high", codec: "h265" });
    const container = await encoding();
    const { status } = await api(tier, "POST", `/v1/jobs/${id}/cancel`);
    expect(status).toBe(200);
    // No ffmpeg left in that container: the processor killed it (the container itself stays
    // warm for the next job until its idle time).
    await until("the encode to stop", async () => !(await appContainers()).some((c) => c.id === container.id && runsJobFfmpeg(c.processes)), 60_000);
    expect((await api(tier, "GET", `/v1/jobs/${id}`)).json.status).toBe("cancelled");
  });

  it("an idle container stops after CONTAINER_SLEEP_AFTER", async () => {
    const start = Date.now();
    const res = await fetch(`${tier.service.baseUrl}/healthz/processor`, { headers: { authorization: `Bearer ${tier.service.adminToken}` } });
    timings["healthz/processor (cold start)"] = Date.now() - start;
    const body = (await res.json()) as { ok: boolean; checks: { processor: { tools: Record<string, string | null>; pushPath?: { ok: boolean } } } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.checks.processor.tools.ffmpeg).toEqual(expect.any(String));
    // The probe checked its route to the runner's host (through the container's outbound handler).
    expect(body.checks.processor.pushPath).toMatchObject({ ok: true });
    const [probe] = await appContainers();
    expect(probe).toBeDefined();
    // Nothing releases the probe's instance: only its idle time stops it.
    await until("the idle container to stop", async () => !(await appContainers()).some((c) => c.id === probe!.id), (SLEEP_AFTER_S + 60) * 1000, 1000);
    timings["idle container stopped after"] = Date.now() - start;
  });
});

// A deploy's SIGTERM on a real Docker engine (docs/deploy.md: deploys and running jobs): the
// processor in the container drains. A job running at the SIGTERM completes where it runs, on
// its first attempt; one that cannot finish by the drain deadline (shortened here to
// DRAIN_MS through PROCESSOR_DRAIN_TIMEOUT_MS) is handed back and completes on its next
// attempt, uncharged. Each job's input is held half-way at the media server (Tier.hold), its
// ffmpeg running and waiting, until the test lets it go on: the SIGTERM lands mid-encode, and
// the job finishes before the deadline or cannot, as the test decides, at any machine speed.
// SIGKILL (no drain) still ends in a completed job on a later attempt: containers.test.ts
// "a container killed mid-job".
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { appContainers, createJob, dockerCli, download, encodingAttempt, ffprobe, jobRow, runsJobFfmpeg, startTier, until, waitForEnd, type Tier } from "./tier.ts";

/**
 * The processor's drain deadline in this tier. What is left of the first test's job once its
 * input is let go (half of clip.mp4 at 160 px, well under a second) fits in it many times over;
 * the second test's job cannot finish in it, its input held past the deadline.
 */
const DRAIN_MS = 15_000;
const timings: Record<string, number> = {};
let tier: Tier;

beforeAll(async () => {
  const start = Date.now();
  tier = await startTier({ sleepAfter: "60s", instances: 2, jobsPerInstance: 1, vars: { PROCESSOR_DRAIN_TIMEOUT_MS: String(DRAIN_MS) } });
  timings["wrangler dev ready (image built)"] = Date.now() - start;
});

afterAll(async () => {
  await tier?.stop();
  console.log("containers tier drain timings (ms):", JSON.stringify(timings, null, 2));
});

/**
 * Once container `id`'s processor logged that the SIGTERM began its drain: that line, which
 * counts the attempts still running.
 */
function draining(id: string): Promise<{ running: number }> {
  return until("the processor to begin its drain", async () => {
    const line = (await dockerCli("logs", id)).split("\n").find((l) => l.includes('"signal received; draining"'));
    return line ? (JSON.parse(line) as { running: number }) : undefined;
  }, 60_000, 100);
}

/** The Worker's log lines (wrangler dev's output) about job `id`, parsed. */
function workerLog(id: string): { message: string; [field: string]: unknown }[] {
  return tier.service
    .output()
    .split("\n")
    .filter((line) => line.includes(id) && line.includes('"message"'))
    .flatMap((line) => {
      // wrangler colours a warning: its escape codes go before the JSON is read.
      const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
      try {
        return [JSON.parse(plain.slice(plain.indexOf("{"), plain.lastIndexOf("}") + 1))];
      } catch {
        return [];
      }
    });
}

describe("SIGTERM drains the container's processor", () => {
  it("a job running at the SIGTERM completes where it runs, on its first attempt, and the container then exits", async () => {
    const start = Date.now();
    const input = tier.hold("clip.mp4");
    onTestFinished(input.release);
    const id = await createJob(tier, "compress-video", input.url, { quality: "low", maxWidth: 160 });
    const victim = await encodingAttempt(`${id}.1`);
    const signalled = Date.now();
    await dockerCli("kill", "--signal=SIGTERM", victim.id);
    // The processor drains with the attempt running, its ffmpeg still there (the signal went to the processor alone).
    expect(await draining(victim.id)).toMatchObject({ running: 1 });
    expect(runsJobFfmpeg((await appContainers()).find((c) => c.id === victim.id)?.processes ?? "", `${id}.1`)).toBe(true);
    input.release();
    const job = await waitForEnd(tier, id);
    timings["compress-video, SIGTERM mid-encode: SIGTERM to completed"] = Date.now() - signalled;
    timings["compress-video, SIGTERM mid-encode: end to end"] = Date.now() - start;
    expect(job.error, JSON.stringify(job.error)).toBeUndefined();
    expect(job.status).toBe("completed");
    expect((await ffprobe(await download(job.result!.url))).streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", width: 160 });
    expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 1 });
    expect(workerLog(id).filter((l) => l.message === "attempt ended; the job gets another")).toEqual([]);
    // Drained, the processor exits by itself (no SIGKILL here): the container goes.
    await until("the drained container to exit", async () => !(await appContainers()).some((c) => c.id === victim.id), 60_000, 250);
    timings["SIGTERM to the drained container's exit"] = Date.now() - signalled;
  });

  it("a job still running at the drain deadline is handed back and completes on attempt 2, uncharged", async () => {
    const start = Date.now();
    const input = tier.hold("clip.mp4");
    onTestFinished(input.release);
    const id = await createJob(tier, "compress-video", input.url, { codec: "h265" });
    const victim = await encodingAttempt(`${id}.1`);
    const signalled = Date.now();
    await dockerCli("kill", "--signal=SIGTERM", victim.id);
    // Its input held until the container is gone, the attempt cannot end before the deadline:
    // the processor hands it back and exits.
    await until("the container to hand back and exit", async () => !(await appContainers()).some((c) => c.id === victim.id), DRAIN_MS + 60_000, 250);
    timings["SIGTERM to the exit after the hand-back"] = Date.now() - signalled;
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS - 1_000);
    // Attempt 2 (its download held too, if it already began) reads the whole input.
    input.release();
    const job = await waitForEnd(tier, id);
    timings["compress-video, handed back: end to end"] = Date.now() - start;
    expect(job.error, JSON.stringify(job.error)).toBeUndefined();
    expect(job.status).toBe("completed");
    expect((await ffprobe(await download(job.result!.url))).streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "hevc", width: 320 });
    expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 2 });
    const ended = workerLog(id).filter((l) => l.message === "attempt ended; the job gets another");
    expect(ended).toEqual([expect.objectContaining({ attempt: 1, cause: "handed back", charged: false })]);
  });
});

// A deploy's SIGTERM on a real Docker engine (docs/deploy.md: deploys and running jobs): the
// processor in the container drains. A job running at the SIGTERM completes where it runs, on
// its first attempt; one that cannot finish by the drain deadline (shortened here to
// DRAIN_MS through PROCESSOR_DRAIN_TIMEOUT_MS) is handed back and completes on its next
// attempt, uncharged. SIGKILL (no drain) still ends in a completed job on a later attempt:
// containers.test.ts "a container killed mid-job".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appContainers, createJob, dockerCli, download, ffprobe, jobRow, startTier, until, waitForEnd, type Tier, runsJobFfmpeg } from "./tier.ts";

/**
 * The processor's drain deadline in this tier: longer than what is left of the short encode
 * (mid.mp4, H.264 low at 160 px: ~1.2 s after the SIGTERM here), far shorter than the long one
 * (long.mp4, H.265 at its own 640×360: tens of seconds; at 320 px it took 8–16 s, and on a
 * quiet machine finished inside the deadline).
 */
const DRAIN_MS = 8_000;
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

/** The app container running ffmpeg, once there is one. */
const encoding = () => until("ffmpeg running in a container", async () => (await appContainers()).find((c) => runsJobFfmpeg(c.processes)), 120_000, 100);

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
    const id = await createJob(tier, "compress-video", `${tier.mediaUrl}/mid.mp4`, { quality: "low", maxWidth: 160 });
    const victim = await encoding();
    const signalled = Date.now();
    await dockerCli("kill", "--signal=SIGTERM", victim.id);
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
    const id = await createJob(tier, "compress-video", `${tier.mediaUrl}/long.mp4`, { codec: "h265" });
    const victim = await encoding();
    const signalled = Date.now();
    await dockerCli("kill", "--signal=SIGTERM", victim.id);
    // The deadline passes (the encode would have run longer); the processor hands the attempt back and exits.
    await until("the container to hand back and exit", async () => !(await appContainers()).some((c) => c.id === victim.id), DRAIN_MS + 60_000, 250);
    timings["SIGTERM to the exit after the hand-back"] = Date.now() - signalled;
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS - 1_000);
    const job = await waitForEnd(tier, id);
    timings["compress-video, handed back: end to end"] = Date.now() - start;
    expect(job.error, JSON.stringify(job.error)).toBeUndefined();
    expect(job.status).toBe("completed");
    expect((await ffprobe(await download(job.result!.url))).streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "hevc", width: 640 });
    expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 2 });
    const ended = workerLog(id).filter((l) => l.message === "attempt ended; the job gets another");
    expect(ended).toEqual([expect.objectContaining({ attempt: 1, cause: "handed back", charged: false })]);
  });
});

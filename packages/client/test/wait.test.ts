// waitForJob polls until the job ends, reports each poll, backs off while the job stays
// the same, lets a server that honours `Prefer: wait` hold each read, and gives up at its
// timeout on the injected clock; enqueueAndWait does both steps.
import { describe, expect, it } from "vitest";
import { MediaJobsClient, TIMINGS, TimeoutError, type SdkJob } from "../src/index.ts";
import { cancelledJob, completedJob, failedJob, processingJob, queuedJob } from "./fixtures.ts";
import { fakeFetch, json, type FakeFetch } from "./fake-fetch.ts";

/** A clock that moves only when the client sleeps. */
function setup(fetch: FakeFetch) {
  let now = 1_000_000;
  const delays: number[] = [];
  const client = new MediaJobsClient({
    apiKey: "sk_test_key",
    fetch,
    now: () => now,
    sleep: async (ms) => {
      delays.push(ms);
      now += ms;
    },
  });
  return { client, delays };
}

describe("waitForJob", () => {
  it("polls until completed, calling onProgress on every poll, and returns the finished job", async () => {
    const fetch = fakeFetch(
      json(200, queuedJob("compressImage", "job_1")),
      json(200, processingJob("compressImage", 30, "job_1")),
      json(200, processingJob("compressImage", 80, "job_1")),
      json(200, completedJob("compressImage", "job_1")),
    );
    const { client, delays } = setup(fetch);
    const seen: Array<[string, number | null]> = [];
    const job = await client.waitForJob("job_1", { pollInterval: 250, onProgress: (j) => seen.push([j.status, j.progress]) });

    expect(seen).toEqual([["pending", null], ["processing", 30], ["processing", 80], ["completed", 100]]);
    expect(delays).toEqual([250, 250, 250]);
    expect(job.status).toBe("completed");
    if (job.type === "compressImage" && job.status === "completed") expect(job.compressionRatio).toBe(0.25);
    else expect.unreachable();
  });

  it.each([
    ["failed", failedJob],
    ["cancelled", cancelledJob],
  ] as const)("returns a %s job instead of throwing", async (status, make) => {
    const { client } = setup(fakeFetch(json(200, processingJob("extractAudio")), json(200, make("extractAudio"))));
    expect((await client.waitForJob("job_1")).status).toBe(status);
  });

  it("throws a TimeoutError (message containing Timeout) with the last job seen once the timeout passes", async () => {
    const fetch = fakeFetch(...Array.from({ length: 10 }, () => json(200, processingJob("compressVideo", 5, "job_slow"))));
    const { client, delays } = setup(fetch);
    let error: unknown;
    try {
      await client.waitForJob("job_slow", { timeout: 1200, pollInterval: 500 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toContain("Timeout");
    expect(error).toMatchObject({ jobId: "job_slow", job: { status: "processing", progress: 5 } });
    // Polls at 0, 500 (unchanged: the next interval is 750) and one last time at the deadline (1200), never past it.
    expect(delays).toEqual([500, 700]);
    expect(fetch.calls).toHaveLength(3);
  });

  it("uses a 60 s timeout and a 500 ms first poll interval by default, backing off to 10 s while nothing changes", async () => {
    const fetch = fakeFetch(...Array.from({ length: 40 }, () => json(200, queuedJob("compressPdf"))));
    const { client, delays } = setup(fetch);
    await expect(client.waitForJob("job_1")).rejects.toThrow(/Timeout/);
    expect(TIMINGS).toMatchObject({ waitTimeoutMs: 60_000, pollIntervalMs: 500, maxPollIntervalMs: 10_000 });
    expect(delays.slice(0, 4)).toEqual([500, 750, 1125, 1687.5]);
    expect(Math.max(...delays)).toBe(10_000);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(60_000);
    // 13 reads in a minute instead of 121: a key's 300 reads a minute cover about 50 jobs waited on at once.
    expect(fetch.calls).toHaveLength(13);
  });

  it("polls at pollInterval again as soon as the job changes", async () => {
    const replies = [queuedJob("compressImage"), queuedJob("compressImage"), queuedJob("compressImage"), processingJob("compressImage", 10), processingJob("compressImage", 10), completedJob("compressImage")];
    const { client, delays } = setup(fakeFetch(...replies.map((job) => json(200, job))));
    await client.waitForJob("job_1", { pollInterval: 200 });
    expect(delays).toEqual([200, 300, 450, 200, 300]);
  });

  it("asks the server to hold each read (Prefer: wait), within the time left and the request timeout", async () => {
    const fetch = fakeFetch(json(200, queuedJob("compressPdf")), json(200, queuedJob("compressPdf")), json(200, completedJob("compressPdf")));
    const { client } = setup(fetch);
    await client.waitForJob("job_1", { timeout: 12_400 });
    expect(fetch.calls[0]!.headers.get("prefer")).toBe("wait=12");
    expect(fetch.calls.map((c) => c.headers.get("prefer"))).toEqual(["wait=12", "wait=11", "wait=11"]);

    const long = fakeFetch(json(200, completedJob("compressPdf")));
    await setup(long).client.waitForJob("job_1", { timeout: 600_000 });
    // 25 s at most, and 5 s inside the 30 s request timeout.
    expect(long.calls[0]!.headers.get("prefer")).toBe(`wait=${TIMINGS.maxPreferWaitS}`);
    const short = fakeFetch(json(200, completedJob("compressPdf")));
    await new MediaJobsClient({ apiKey: "k", fetch: short, timeout: 8_000 }).waitForJob("job_1", { timeout: 600_000 });
    expect(short.calls[0]!.headers.get("prefer")).toBe("wait=3");
  });

  it("when the server says it held the read (Preference-Applied: wait=N), asks again at once, without polling delays", async () => {
    const held = (job: ReturnType<typeof queuedJob>) => json(200, job, { "preference-applied": "wait=25" });
    const fetch = fakeFetch(held(queuedJob("compressImage")), held(processingJob("compressImage", 50)), held(processingJob("compressImage", 50)), held(completedJob("compressImage")));
    const { client, delays } = setup(fetch);
    const seen: Array<string> = [];
    const job = await client.waitForJob("job_1", { onProgress: (j) => seen.push(`${j.status} ${j.progress}`) });
    expect(job.status).toBe("completed");
    expect(delays).toEqual([]);
    expect(seen).toEqual(["pending null", "processing 50", "processing 50", "completed 100"]);
  });

  it("sends no Prefer header when less than a second is left", async () => {
    const fetch = fakeFetch(json(200, completedJob("compressPdf")));
    await setup(fetch).client.waitForJob("job_1", { timeout: 900 });
    expect(fetch.calls[0]!.headers.has("prefer")).toBe(false);
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const fetch = fakeFetch(json(200, queuedJob("compressPdf")), json(200, queuedJob("compressPdf")));
    const client = new MediaJobsClient({ apiKey: "k", fetch });
    const waiting = client.waitForJob("job_1", { pollInterval: 60_000, signal: controller.signal, onProgress: () => controller.abort(new Error("stop")) });
    await expect(waiting).rejects.toThrow("stop");
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("enqueueAndWait", () => {
  it("creates the job, waits for it and returns it typed by its type", async () => {
    const fetch = fakeFetch(
      json(201, { id: "job_1", type: "compress-pdf", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 }),
      json(200, processingJob("compressPdf", 50, "job_1")),
      json(200, completedJob("compressPdf", "job_1")),
    );
    const { client } = setup(fetch);
    const progress: SdkJob[] = [];
    const job = await client.enqueueAndWait(
      { type: "compressPdf", params: { url: "https://example.com/a.pdf", quality: "low" } },
      { onProgress: (j) => progress.push(j) },
    );
    expect(fetch.calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual(["POST /v1/jobs", "GET /v1/jobs/job_1", "GET /v1/jobs/job_1"]);
    expect(progress.map((j) => j.status)).toEqual(["processing", "completed"]);
    expect(job.type).toBe("compressPdf");
    if (job.status === "completed") expect(job.pages).toBe(12);
    else expect.unreachable();
  });
});

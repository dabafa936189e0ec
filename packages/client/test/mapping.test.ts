// The client speaks the HTTP dialect on the wire and answers in the SDK dialect: every
// type, every status, results at the root, errors as message plus code.
import { describe, expect, it } from "vitest";
import { MediaJobsClient, type Usage, type WebhookDelivery } from "../src/index.ts";
import { jobTypes, JOB_TYPES } from "../../../src/contract/registry.ts";
import { cancelledJob, completedJob, failedJob, HTTP_NAMES, processingJob, queuedJob, RESULTS } from "./fixtures.ts";
import { fakeFetch, json } from "./fake-fetch.ts";

const BASE = "https://media.example.com/v1";

function clientWith(fetch: ReturnType<typeof fakeFetch>) {
  return new MediaJobsClient({ apiKey: "sk_test_key", baseUrl: BASE, fetch });
}

describe("fixtures", () => {
  it.each(JOB_TYPES)("the %s result fixture satisfies the contract's result schema", (type) => {
    expect(() => jobTypes[type].result.parse(RESULTS[type])).not.toThrow();
  });
});

describe("getJob", () => {
  it.each(JOB_TYPES)("a completed %s job has its result fields at the root and the SDK type name", async (type) => {
    const fetch = fakeFetch(json(200, completedJob(type)));
    const job = await clientWith(fetch).getJob("job_completed000000000000000");

    expect(fetch.calls[0]).toMatchObject({ method: "GET", url: `${BASE}/jobs/job_completed000000000000000` });
    expect(fetch.calls[0]!.headers.get("authorization")).toBe("Bearer sk_test_key");
    expect(job).toEqual({
      id: "job_completed000000000000000",
      type,
      status: "completed",
      priority: 5,
      progress: 100,
      createdAt: "2026-01-01T00:00:00.000Z",
      startedAt: "2026-01-01T00:00:01.000Z",
      completedAt: "2026-01-01T00:00:09.000Z",
      error: null,
      errorCode: null,
      metadata: { order: "ord_123" },
      timings: { queuedMs: 1000, retriesMs: 0, startMs: 40, fetchInputMs: 1200, processMs: 6440, storeOutputMs: 300, reportMs: 20 },
      ...RESULTS[type],
    });
    expect(job).not.toHaveProperty("result");
  });

  it.each(JOB_TYPES)("a queued %s job is pending, with no result and no error", async (type) => {
    const job = await clientWith(fakeFetch(json(200, queuedJob(type)))).getJob("job_queued000000000000000000");
    expect(job).toMatchObject({ type, status: "pending", progress: null, error: null, errorCode: null });
    expect(job).not.toHaveProperty("url");
  });

  it.each(JOB_TYPES)("a processing %s job keeps its progress", async (type) => {
    const job = await clientWith(fakeFetch(json(200, processingJob(type, 42)))).getJob("job_processing00000000000000");
    expect(job).toMatchObject({ type, status: "processing", progress: 42, startedAt: "2026-01-01T00:00:01.000Z" });
  });

  it.each(JOB_TYPES)("a failed %s job carries the error's message as a string and its code apart", async (type) => {
    const job = await clientWith(fakeFetch(json(200, failedJob(type)))).getJob("job_failed000000000000000000");
    expect(job).toMatchObject({
      type,
      status: "failed",
      error: "The input is not an image we can read (it looks like a PDF).",
      errorCode: "unsupported_media",
    });
  });

  it.each(JOB_TYPES)("a cancelled %s job stays cancelled", async (type) => {
    const job = await clientWith(fakeFetch(json(200, cancelledJob(type)))).getJob("job_cancelled000000000000000");
    expect(job).toMatchObject({ type, status: "cancelled", error: null });
  });

  it("escapes the job id in the path", async () => {
    const fetch = fakeFetch(json(200, queuedJob("compressPdf")));
    await clientWith(fetch).getJob("job_a/b?c");
    expect(fetch.calls[0]!.url).toBe(`${BASE}/jobs/job_a%2Fb%3Fc`);
  });

  it("refuses an empty job id before any request", async () => {
    const fetch = fakeFetch();
    await expect(clientWith(fetch).getJob("")).rejects.toThrow(/jobId must be a non-empty string/);
    expect(fetch.calls).toHaveLength(0);
  });
});

describe("enqueueJob", () => {
  it("posts the SDK-dialect body and returns the job id as pending", async () => {
    const fetch = fakeFetch(
      json(201, { id: "job_new0000000000000000000000", type: "compress-image", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 3 }),
    );
    const created = await clientWith(fetch).enqueueJob({
      type: "compressImage",
      params: { url: "https://example.com/a.jpg", quality: 70, format: "webp" },
      priority: 3,
      webhookUrl: "https://example.com/hook",
      webhookSecret: "a-secret-of-16-chars-or-more",
    });

    expect(created).toEqual({ jobId: "job_new0000000000000000000000", status: "pending", createdAt: "2026-01-01T00:00:00.000Z" });
    const call = fetch.calls[0]!;
    expect(call).toMatchObject({ method: "POST", url: `${BASE}/jobs` });
    expect(call.headers.get("content-type")).toBe("application/json");
    expect(call.headers.get("idempotency-key")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(call.body).toEqual({
      type: "compressImage",
      params: { url: "https://example.com/a.jpg", quality: 70, format: "webp" },
      priority: 3,
      webhookUrl: "https://example.com/hook",
      webhookSecret: "a-secret-of-16-chars-or-more",
    });
  });

  it("sends only the fields given, so the server applies its defaults", async () => {
    const fetch = fakeFetch(json(201, { id: "job_x", type: "extract-audio", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 }));
    await clientWith(fetch).enqueueJob({ type: "extractAudio", params: { url: "https://example.com/a.mp4" } });
    expect(fetch.calls[0]!.body).toEqual({ type: "extractAudio", params: { url: "https://example.com/a.mp4" } });
  });

  it("uses a fresh idempotency key per call, or the caller's", async () => {
    const created = () => json(201, { id: "job_x", type: "compress-pdf", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 });
    const fetch = fakeFetch(created(), created(), created());
    const client = clientWith(fetch);
    const input = { type: "compressPdf", params: { url: "https://example.com/a.pdf" } } as const;
    await client.enqueueJob(input);
    await client.enqueueJob(input);
    await client.enqueueJob(input, { idempotencyKey: "upload-42" });
    const keys = fetch.calls.map((c) => c.headers.get("idempotency-key"));
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("upload-42");
  });
});

describe("cancelJob", () => {
  it("posts to the cancel route and reports success", async () => {
    const fetch = fakeFetch(json(200, { success: true, jobId: "job_1" }));
    expect(await clientWith(fetch).cancelJob("job_1")).toEqual({ success: true, jobId: "job_1" });
    expect(fetch.calls[0]).toMatchObject({ method: "POST", url: `${BASE}/jobs/job_1/cancel` });
  });

  it("reports a finished job as not cancelled, with its status in the SDK dialect", async () => {
    const fetch = fakeFetch(json(200, { success: false, jobId: "job_1", status: "completed" }));
    expect(await clientWith(fetch).cancelJob("job_1")).toEqual({ success: false, jobId: "job_1", status: "completed" });
  });
});

describe("listJobs", () => {
  const page = (jobs: ReturnType<typeof queuedJob>[], nextCursor: string | null) =>
    json(200, { data: jobs, nextCursor, hasMore: nextCursor !== null });

  it("iterates every job across pages, following the cursors, in the SDK dialect", async () => {
    const fetch = fakeFetch(
      page([completedJob("compressImage", "job_3"), processingJob("compressVideo", 10, "job_2")], "cur_1"),
      page([queuedJob("compressPdf", "job_1")], null),
    );
    const seen = [];
    for await (const job of clientWith(fetch).listJobs({ limit: 2 })) seen.push([job.id, job.type, job.status]);

    expect(seen).toEqual([
      ["job_3", "compressImage", "completed"],
      ["job_2", "compressVideo", "processing"],
      ["job_1", "compressPdf", "pending"],
    ]);
    expect(fetch.calls.map((c) => c.url)).toEqual([`${BASE}/jobs?limit=2`, `${BASE}/jobs?limit=2&cursor=cur_1`]);
  });

  it("sends pending as queued, and other statuses as they are", async () => {
    const fetch = fakeFetch(page([], null), page([], null));
    await clientWith(fetch).listJobs({ status: "pending" }).page();
    await clientWith(fetch).listJobs({ status: "failed" }).page();
    expect(fetch.calls.map((c) => new URL(c.url).searchParams.get("status"))).toEqual(["queued", "failed"]);
  });

  it("requests nothing until iterated, and page() fetches one page from a cursor", async () => {
    const fetch = fakeFetch(page([queuedJob("videoThumbnail", "job_9")], "cur_2"));
    const list = clientWith(fetch).listJobs({ status: "processing", limit: 1 });
    expect(fetch.calls).toHaveLength(0);

    const one = await list.page({ cursor: "cur_1" });
    expect(one).toMatchObject({ nextCursor: "cur_2", hasMore: true, data: [{ id: "job_9", type: "videoThumbnail", status: "pending" }] });
    expect(fetch.calls[0]!.url).toBe(`${BASE}/jobs?limit=1&status=processing&cursor=cur_1`);
  });

  it("stops when the service says there are no more pages, even with a cursor", async () => {
    const fetch = fakeFetch(json(200, { data: [queuedJob("extractAudio", "job_1")], nextCursor: "cur_x", hasMore: false }));
    const ids = [];
    for await (const job of clientWith(fetch).listJobs()) ids.push(job.id);
    expect(ids).toEqual(["job_1"]);
    expect(fetch.calls).toHaveLength(1);
  });
});

it("maps every HTTP type name", () => {
  expect(Object.keys(HTTP_NAMES).sort()).toEqual([...JOB_TYPES].sort());
});

describe("usage and webhook deliveries", () => {
  const delivery = {
    id: "msg_Vq3kQ0aB7xYz9TuvW1rS2dEf",
    jobId: "job_1",
    trigger: "final",
    url: "https://example.com/hook",
    status: "failed",
    attemptCount: 2,
    createdAt: "2026-01-01T00:00:09.000Z",
    lastAttemptAt: "2026-01-01T00:00:14.000Z",
    nextAttemptAt: null,
    completedAt: "2026-01-01T00:00:14.000Z",
    attempts: [
      { attempt: 2, at: "2026-01-01T00:00:14.000Z", statusCode: 500, error: null, latencyMs: 31 },
      { attempt: 1, at: "2026-01-01T00:00:09.000Z", statusCode: null, error: "connection refused", latencyMs: 4 },
    ],
  } satisfies WebhookDelivery;

  it("getUsage reads GET /v1/usage as it is", async () => {
    const usage = {
      plan: "pro",
      mode: "test",
      billable: false,
      limits: {
        concurrentJobs: 10,
        jobsPerHour: 1000,
        readsPerMinute: 300,
        maxUploadBytes: 2 * 1024 ** 3,
        uploadsPerHour: 1000,
        openUploads: 50,
        maxFanout: 4,
        media: { storyboardTiles: 400, storyboardTileWidth: 640, av1MaxSide: 1920, previewDurationS: 20, previewWidth: 960, previewFps: 24, adaptiveRenditions: 5, adaptiveMaxHeight: 1440, concatInputs: 10 },
      },
      window: { seconds: 3600, jobs: 3, remaining: 997, oldestLeavesInS: 3400 },
      processing: 1,
      queued: 2,
      uploads: { inWindow: 2, remaining: 998, oldestLeavesInS: 3500, open: 1 },
    } satisfies Usage;
    const fetch = fakeFetch(json(200, usage));
    expect(await clientWith(fetch).getUsage()).toEqual(usage);
    expect(fetch.calls[0]).toMatchObject({ method: "GET", url: `${BASE}/usage` });
  });

  it("listWebhookDeliveries returns a job's deliveries with their attempts", async () => {
    const fetch = fakeFetch(json(200, { data: [delivery] }));
    expect(await clientWith(fetch).listWebhookDeliveries("job_1")).toEqual([delivery]);
    expect(fetch.calls[0]).toMatchObject({ method: "GET", url: `${BASE}/jobs/job_1/webhooks` });
  });

  it("redeliverWebhook posts to the redeliver route and returns the new delivery", async () => {
    const fresh = { ...delivery, id: "msg_new", trigger: "redeliver", status: "pending", attemptCount: 0, lastAttemptAt: null, nextAttemptAt: "2026-01-01T01:00:00.000Z", completedAt: null, attempts: [] } satisfies WebhookDelivery;
    const fetch = fakeFetch(json(202, fresh));
    expect(await clientWith(fetch).redeliverWebhook("job_1")).toEqual(fresh);
    expect(fetch.calls[0]).toMatchObject({ method: "POST", url: `${BASE}/jobs/job_1/webhooks/redeliver` });
  });

  it("a redelivery the service refuses is an invalid_input ApiError naming the field", async () => {
    const details = [{ path: "webhookUrl", message: "not set when the job was created" }];
    const fetch = fakeFetch(json(400, { error: { code: "invalid_input", message: "the job has no webhookUrl to deliver to", details } }));
    await expect(clientWith(fetch).redeliverWebhook("job_1")).rejects.toMatchObject({ status: 400, code: "invalid_input", details });
  });
});

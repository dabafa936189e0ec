// The client library against the whole local service (wrangler dev + the real processor),
// as an application would use it: enqueue and wait with progress, stream a job's events,
// cancel, list, usage, and a real webhook delivery verified with verifyWebhook, its
// delivery log and a redelivery.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MediaJobsClient, verifyWebhook, type FetchLike, type JobEvent } from "../../packages/client/src/index.ts";

// The whole service, started once for the e2e project (test/support/e2e-setup.ts).
const service = inject("service");
let client: MediaJobsClient;
let key: string;
let local: Server;
let localUrl: string;
const received: { body: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  const res = await fetch(`${service.baseUrl}/admin/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ org: "sdk-e2e", plan: "pro" }),
  });
  ({ key } = (await res.json()) as { key: string });
  client = new MediaJobsClient({ apiKey: key, baseUrl: `${service.baseUrl}/v1` });

  // An input that never finishes downloading (for cancel) and a webhook receiver.
  local = createServer(async (req, res) => {
    if (req.url === "/stall") {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": 1_000_000 }).write(Buffer.alloc(10));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  local?.closeAllConnections();
  await new Promise((resolve) => local?.close(resolve));
});

describe("the client library against the running service", () => {
  it("runs a compressImage job with enqueueAndWait, reporting progress, and the output downloads", async () => {
    const seen: string[] = [];
    const job = await client.enqueueAndWait(
      { type: "compressImage", params: { url: `${service.mediaUrl}/image?w=1200&h=900`, quality: 70, format: "webp", maxWidth: 600 } },
      { timeout: 60_000, pollInterval: 100, onProgress: (j) => seen.push(j.status) },
    );
    expect(job.status).toBe("completed");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => ["pending", "processing", "completed"].includes(s))).toBe(true);
    if (job.type !== "compressImage" || job.status !== "completed") throw new Error("narrowing");
    expect(job).toMatchObject({ width: 600, height: 450, format: "webp", error: null, errorCode: null });
    expect(job.compressionRatio).toBeLessThan(1);
    const bytes = Buffer.from(await (await fetch(job.url)).arrayBuffer());
    expect(bytes.length).toBe(job.size);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "webp", width: 600, height: 450 });
  });

  it("streams a job's events: its states as they change, then the end with the finished job", async () => {
    const { jobId } = await client.enqueueJob({ type: "compressImage", params: { url: `${service.mediaUrl}/image?w=800&h=600`, format: "png" } });
    const events: JobEvent[] = [];
    for await (const event of client.jobEvents(jobId, { signal: AbortSignal.timeout(60_000) })) events.push(event);

    const end = events.at(-1)!;
    expect(events.slice(0, -1).every((e) => e.event === "progress" && ["pending", "processing"].includes(e.job.status))).toBe(true);
    expect(end.event).toBe("end");
    if (end.job.type !== "compressImage" || end.job.status !== "completed") throw new Error(`not completed: ${end.job.status} ${end.job.error}`);
    expect(end.job).toMatchObject({ id: jobId, width: 800, height: 600, format: "png", error: null });
    expect(await sharp(Buffer.from(await (await fetch(end.job.url)).arrayBuffer())).metadata()).toMatchObject({ format: "png", width: 800, height: 600 });
  });

  it("streams on over a new connection when one closes before the end, without repeating a state", async () => {
    const { jobId } = await client.enqueueJob({ type: "compressImage", params: { url: `${localUrl}/stall` } });
    await untilProcessing(jobId);
    // The first connection ends after its first event, as the server's own 60 s close would
    // end it. The second one's first event (the same state) is read here, and the job is
    // cancelled, so that the stream goes on to its end.
    const firstEvents: string[] = [];
    const cutting: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (!url.endsWith("/events")) return response;
      const reader = response.body!.getReader();
      const { head, rest } = await firstEvent(reader);
      firstEvents.push(head);
      if (firstEvents.length === 1) {
        await reader.cancel();
        return new Response(head, response);
      }
      expect((await client.cancelJob(jobId)).success).toBe(true);
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(encoder.encode(head + rest)),
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, response);
    };
    const streaming = new MediaJobsClient({ apiKey: key, baseUrl: `${service.baseUrl}/v1`, fetch: cutting });
    const seen: string[] = [];
    for await (const { event, job } of streaming.jobEvents(jobId, { signal: AbortSignal.timeout(60_000) })) seen.push(`${event} ${job.status}`);

    expect(firstEvents).toHaveLength(2);
    expect(firstEvents.map((head) => head.split("\n")[0])).toEqual(["event: progress", "event: progress"]);
    expect(firstEvents.every((head) => head.includes(`"status":"processing"`))).toBe(true);
    expect(seen).toEqual(["progress processing", "end cancelled"]);
  });

  it("cancels a job that is processing", async () => {
    const { jobId, status } = await client.enqueueJob({ type: "compressImage", params: { url: `${localUrl}/stall` } });
    expect(status).toBe("pending");
    await untilProcessing(jobId);
    expect(await client.cancelJob(jobId)).toEqual({ success: true, jobId });
    expect((await client.getJob(jobId)).status).toBe("cancelled");
    expect(await client.cancelJob(jobId)).toMatchObject({ success: false, jobId });
  });

  it("lists every job across pages, newest first", async () => {
    const ids: string[] = [];
    for await (const job of client.listJobs({ limit: 1 })) ids.push(job.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("receives a webhook that verifyWebhook accepts, with the job in the SDK dialect", async () => {
    const secret = "whsec_e2eTestSecretForSdkVerification1";
    const job = await client.enqueueAndWait(
      { type: "compressImage", params: { url: `${service.mediaUrl}/image?w=320&h=240` }, webhookUrl: `${localUrl}/hook`, webhookSecret: secret },
      { timeout: 60_000, pollInterval: 100 },
    );
    const deadline = Date.now() + 30_000;
    while (!received.some((r) => r.body.includes(job.id))) {
      if (Date.now() > deadline) throw new Error("no webhook arrived");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const delivery = received.find((r) => r.body.includes(job.id))!;
    const payload = await verifyWebhook(delivery.body, delivery.headers as Record<string, string>, secret);
    expect(payload).toMatchObject({ id: job.id, type: "compressImage", status: "completed", error: null });
    await expect(verifyWebhook(delivery.body, delivery.headers as Record<string, string>, "whsec_wrong")).rejects.toThrow();

    // The delivery log, then a redelivery that arrives as a new delivery of the same job.
    const [final] = await client.listWebhookDeliveries(job.id);
    expect(final).toMatchObject({ jobId: job.id, trigger: "final", status: "succeeded", url: `${localUrl}/hook`, attemptCount: 1 });
    expect(final!.attempts).toMatchObject([{ attempt: 1, statusCode: 200, error: null }]);
    const again = await client.redeliverWebhook(job.id);
    expect(again).toMatchObject({ jobId: job.id, trigger: "redeliver", status: "pending", attempts: [] });
    expect(again.id).not.toBe(final!.id);
    const until = Date.now() + 30_000;
    while (received.filter((r) => r.body.includes(job.id)).length < 2) {
      if (Date.now() > until) throw new Error("the redelivery never arrived");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const redelivered = received.filter((r) => r.body.includes(job.id))[1]!;
    expect(redelivered.headers["webhook-id"]).toBe(again.id);
    expect(await verifyWebhook(redelivered.body, redelivered.headers as Record<string, string>, secret)).toMatchObject({ id: job.id, status: "completed" });
  });

  it("uploads a file, compresses it from upload:<id> with metadata, finds it by metadata, deletes it", async () => {
    const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
    const upload = await client.uploadFile(new Uint8Array(png), { filename: "generated.png", contentType: "image/png" });
    expect(upload).toMatchObject({ status: "uploaded", size: png.length, contentType: "image/png" });
    const order = `ord_${upload.id}`;
    const { jobId } = await client.enqueueJob({ type: "compressImage", params: { url: `upload:${upload.id}`, format: "webp" }, metadata: { order } });
    const found = [];
    for await (const j of client.listJobs({ metadata: { order }, created: { gte: new Date(Date.now() - 3_600_000) } })) found.push(j.id);
    expect(found).toEqual([jobId]);
    const job = await client.waitForJob(jobId, { timeout: 60_000, pollInterval: 100 });
    if (job.type !== "compressImage" || job.status !== "completed") throw new Error(`not completed: ${job.status} ${job.error}`);
    expect(job.metadata).toEqual({ order });
    const bytes = Buffer.from(await (await fetch(job.url)).arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "webp", width: 320, height: 240 });
    expect(await client.deleteJob(jobId)).toEqual({ id: jobId, deleted: true });
    await expect(client.getJob(jobId)).rejects.toMatchObject({ status: 404 });
  });

  it("reads usage: the plan, its limits and the jobs created this hour", async () => {
    const usage = await client.getUsage();
    expect(usage).toMatchObject({ plan: "pro", mode: "live", billable: true, limits: { jobsPerHour: 1000, readsPerMinute: 300 } });
    expect(usage.window.jobs).toBeGreaterThanOrEqual(3);
    expect(usage.window.remaining).toBe(usage.limits.jobsPerHour - usage.window.jobs);
  });

  it("a redelivery the service refuses is an ApiError naming the field", async () => {
    const { jobId } = await client.enqueueJob({ type: "compressImage", params: { url: `${service.mediaUrl}/image?w=64&h=64` } });
    await expect(client.redeliverWebhook(jobId)).rejects.toMatchObject({ status: 400, code: "invalid_input", details: [{ path: "webhookUrl" }] });
  });
});

async function untilProcessing(jobId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await client.getJob(jobId)).status !== "processing") {
    if (Date.now() > deadline) throw new Error("job never started");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads an event stream up to the end of its first event: that event, and what came after it in the same chunks. */
async function firstEvent(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ head: string; rest: string }> {
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the event stream ended before its first event: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const end = text.indexOf("\n\n") + 2;
  return { head: text.slice(0, end), rest: text.slice(end) };
}

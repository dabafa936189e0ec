// Webhook delivery (docs/webhooks.md): signed so that both the SDK and any Standard
// Webhooks library verify it, retried on the schedule through the queue's own delays,
// logged attempt by attempt, and scheduled once per finished job. Retries are driven
// here with createMessageBatch, so no test waits through a backoff.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { toSdkJob } from "../../src/contract/dialects.ts";
import { database } from "../../src/db/client.ts";
import worker from "../../src/index.ts";
import { newId } from "../../src/lib/crypto.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { finishJob } from "../../src/runner/finish.ts";
import { consumeWebhooks } from "../../src/webhooks/consumer.ts";
import { deliver } from "../../src/webhooks/deliver.ts";
import { scheduleFinalDelivery, type WebhookMessage } from "../../src/webhooks/schedule.ts";
import { signDelivery } from "../../src/webhooks/sign.ts";
import { insertDelivery } from "../../src/webhooks/store.ts";
import { call, media, newKey, storedJob, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const { maxAttempts: MAX_ATTEMPTS, retryDelaysS: RETRY_DELAYS_S } = TUNABLES.webhooks;

// packages/client/src/webhooks.ts reads `globalThis.crypto`, which the Workers types
// declare as a global const rather than a property of globalThis, so tsconfig.worker.json
// cannot type-check that module; workerd runs it unchanged. It is loaded through a computed path
// and typed here by the two functions the tests use.
interface Sdk {
  verifyWebhook(rawBody: string, headers: Record<string, string>, secret: string | string[]): Promise<any>;
  signWebhook(rawBody: string, secret: string, timestampMs: number): Promise<Record<string, string>>;
}
const sdkPath = "../../packages/client/src/webhooks.ts";
const sdk = (await import(/* @vite-ignore */ sdkPath)) as Sdk;

const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;
const adminHeaders = { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` };

interface Recorded {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

async function recorded(tag: string): Promise<Recorded[]> {
  return (await fetch(`${receiver}/recorded?id=${tag}`)).json();
}

async function orgSecrets(orgId: string) {
  return (await testEnv.DB.prepare("SELECT webhook_secret AS current, previous_webhook_secret AS previous FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<{ current: string; previous: string | null }>())!;
}

/** A failed job of the org, written straight to D1 (nothing runs it), ending at `path` of the receiver. */
async function finishedJob(orgId: string, path: string | null, options: { status?: "failed" | "cancelled" | "queued"; webhookSecret?: string } = {}) {
  const tag = crypto.randomUUID();
  const now = Date.now();
  const status = options.status ?? "failed";
  const job = await storedJob(orgId, {
    status,
    webhookUrl: path === null ? null : `${receiver}${path}${path.includes("?") ? "&" : "?"}id=${tag}`,
    webhookSecret: options.webhookSecret ?? null,
    errorCode: status === "failed" ? "corrupt_media" : null,
    errorMessage: status === "failed" ? "the input is not a readable image" : null,
    createdAt: now - 1000,
    completedAt: status === "queued" ? null : now,
  });
  return { job, tag };
}

/** A pending delivery of the job, written without a queue message: the test drives the consumer. */
async function pendingDelivery(job: { id: string; orgId: string; webhookUrl: string | null }) {
  const id = newId("msg");
  await insertDelivery(database(testEnv.DB), { id, jobId: job.id, orgId: job.orgId, trigger: "final", url: job.webhookUrl!, createdAt: Date.now() });
  return id;
}

/**
 * Hands the consumer the delivery's message as the queue would on its `attempts`-th
 * delivery. getQueueResult does not report a retry's options, so `delays` collects the
 * `delaySeconds` asked of message.retry().
 */
async function drive(deliveryId: string, attempts: number) {
  const batch = createMessageBatch<WebhookMessage>("media-jobs-webhooks", [{ id: `m-${attempts}`, timestamp: new Date(), attempts, body: { deliveryId } }]);
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const ctx = createExecutionContext();
  await worker.queue(batch, testEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  return { ...result, delays: retry.mock.calls.map(([options]) => options?.delaySeconds) };
}

async function deliveryRow(id: string) {
  return testEnv.DB.prepare("SELECT status, attempts, next_attempt_at AS nextAttemptAt, completed_at AS completedAt FROM webhook_deliveries WHERE id = ?")
    .bind(id)
    .first<{ status: string; attempts: number; nextAttemptAt: number | null; completedAt: number | null }>();
}

async function attemptRows(id: string) {
  const { results } = await testEnv.DB.prepare(
    "SELECT attempt, at, status_code AS statusCode, error, latency_ms AS latencyMs FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt",
  )
    .bind(id)
    .all<{ attempt: number; at: number; statusCode: number | null; error: string | null; latencyMs: number }>();
  return results;
}

/** The payload with its signed links and their expiry taken out, which differ at every signing. */
function withoutLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== "url" && k !== "expiresAt").map(([k, v]) => [k, withoutLinks(v)]));
}

describe("webhook delivery", () => {
  it("posts a completed job in the SDK dialect, signed so that the SDK and the standardwebhooks package both verify it", async () => {
    const { key, orgId } = await newKey();
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image"), webhookUrl: `${receiver}/ok?id=${tag}` } });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id);
    expect(job.status).toBe("completed");
    const [request] = await waitFor(async () => ((await recorded(tag)).length ? recorded(tag) : undefined), "the webhook");

    const { current: secret } = await orgSecrets(orgId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const h = request!.headers;
    expect(h["content-type"]).toBe("application/json");
    expect(h["user-agent"]).toBe("media-jobs-webhooks/1");
    expect(h["webhook-id"]).toMatch(/^msg_/);
    expect(Number(h["webhook-timestamp"])).toBe(Math.floor(Number(h["x-service-timestamp"]) / 1000));

    // The service's own scheme: the SDK signs the same bytes identically, and verifies them.
    expect(h["x-service-signature"]).toBe((await sdk.signWebhook(request!.body, secret, Number(h["x-service-timestamp"])))["x-service-signature"]);
    const viaSdk = await sdk.verifyWebhook(request!.body, h, secret);
    // Standard Webhooks: the library is given the secret exactly as the dashboard shows it.
    const viaStandard = new Webhook(secret).verify(request!.body, h);
    expect(viaStandard).toEqual(viaSdk);
    await expect(sdk.verifyWebhook(request!.body, h, `whsec_${"x".repeat(32)}`)).rejects.toThrow(/does not match/);
    expect(() => new Webhook(`whsec_${"A".repeat(32)}`).verify(request!.body, h)).toThrow(/No matching signature/);

    // The body is the job as the SDK sees it; its links are signed at the attempt, for an hour.
    const payload = JSON.parse(request!.body);
    const now = await call("GET", `/v1/jobs/${job.id}`, { key });
    expect(withoutLinks(payload)).toEqual(withoutLinks(toSdkJob(now.json)));
    expect(payload).toMatchObject({ id: job.id, type: "compressImage", status: "completed", error: null, errorCode: null, format: "jpg" });
    expect(payload.url).toMatch(new RegExp(`^${testEnv.PUBLIC_BASE_URL}/v1/files/`));
    expect(Math.abs(Date.parse(payload.expiresAt) - (Number(h["x-service-timestamp"]) + 3600_000))).toBeLessThan(2000);
    const download = await workerFetch(payload.url);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(payload.size);

    // The delivery log shows one successful attempt under the id that was sent.
    const log = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${job.id}/webhooks`, { key });
      return res.json.data[0]?.status === "succeeded" ? res.json.data : undefined;
    }, "the delivery to be logged");
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ id: h["webhook-id"], trigger: "final", status: "succeeded", attemptCount: 1, nextAttemptAt: null });
    expect(log[0].attempts).toEqual([{ attempt: 1, at: expect.any(String), statusCode: 200, error: null, latencyMs: expect.any(Number) }]);
  });

  it("retries a receiver that fails three times with growing delays, then succeeds exactly once", async () => {
    const { key, orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/fail-first?n=3");
    const deliveryId = await pendingDelivery(job);

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const result = await drive(deliveryId, attempt);
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages).toHaveLength(1);
      delays.push(result.delays[0]!);
      const row = await deliveryRow(deliveryId);
      expect(row).toMatchObject({ status: "pending", attempts: attempt });
      expect(row!.nextAttemptAt).toBeGreaterThan(Date.now() + delays.at(-1)! * 1000 - 5000);
    }
    // About 5 s, 5 min, 30 min, each within its ±10 % jitter.
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_S[i]! * 0.9 - 1);
      expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_S[i]! * 1.1 + 1);
    });
    expect(delays[0]!).toBeLessThan(delays[1]!);
    expect(delays[1]!).toBeLessThan(delays[2]!);

    const fourth = await drive(deliveryId, 4);
    expect(fourth.explicitAcks).toEqual(["m-4"]);
    // A duplicate of the message after success sends nothing.
    const duplicate = await drive(deliveryId, 4);
    expect(duplicate.explicitAcks).toEqual(["m-4"]);

    const requests = await recorded(tag);
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([deliveryId]));
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "succeeded", attempts: 4, nextAttemptAt: null });
    const attempts = await attemptRows(deliveryId);
    expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 500], [3, 500], [4, 200]]);
    expect(attempts.every((a) => a.latencyMs >= 0)).toBe(true);

    const log = await call("GET", `/v1/jobs/${job.id}/webhooks`, { key });
    expect(log.json.data[0]).toMatchObject({ id: deliveryId, status: "succeeded", attemptCount: 4 });
    expect(log.json.data[0].attempts.map((a: any) => a.statusCode)).toEqual([200, 500, 500, 500]);
  });

  it("dead-letters a delivery whose receiver always fails, after the last scheduled attempt", async () => {
    const { orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/fail");
    const deliveryId = await pendingDelivery(job);
    const asked: (number | undefined)[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const result = await drive(deliveryId, attempt);
      expect(result.retryMessages).toHaveLength(1);
      expect(result.delays).toHaveLength(1);
      asked.push(result.delays[0]);
    }
    // Seven delays, then a plain retry that the queue (max_retries = 7) turns into a dead letter.
    expect(asked).toHaveLength(8);
    asked.slice(0, 7).forEach((delay, i) => expect(Math.abs(delay! - RETRY_DELAYS_S[i]!)).toBeLessThanOrEqual(RETRY_DELAYS_S[i]! * 0.1 + 1));
    expect(asked[7]).toBeUndefined();
    expect(Math.max(...(asked.slice(0, 7) as number[]))).toBeLessThanOrEqual(12 * 3600);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "pending", attempts: 8, nextAttemptAt: null });

    const dead = createMessageBatch<WebhookMessage>("media-jobs-webhooks-dlq", [{ id: "dead", timestamp: new Date(), attempts: 1, body: { deliveryId } }]);
    const ctx = createExecutionContext();
    await worker.queue(dead, testEnv, ctx);
    expect((await getQueueResult(dead, ctx)).explicitAcks).toEqual(["dead"]);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "failed", attempts: 8 });
    expect((await attemptRows(deliveryId)).map((a) => a.statusCode)).toEqual(Array(8).fill(500));
    expect(await recorded(tag)).toHaveLength(8);
  });

  it("stops at once on 410 Gone", async () => {
    const { orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/gone");
    const deliveryId = await pendingDelivery(job);
    const result = await drive(deliveryId, 1);
    expect(result.explicitAcks).toEqual(["m-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "failed", attempts: 1 });
    expect((await attemptRows(deliveryId)).map((a) => a.statusCode)).toEqual([410]);
    await drive(deliveryId, 2);
    expect(await recorded(tag)).toHaveLength(1);
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    const { orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/redirect");
    const deliveryId = await pendingDelivery(job);
    const result = await drive(deliveryId, 1);
    expect(result.retryMessages).toHaveLength(1);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "pending", attempts: 1 });
    const [attempt] = await attemptRows(deliveryId);
    expect(attempt).toMatchObject({ statusCode: 302, error: expect.stringContaining("redirect") });
    expect((await recorded(tag)).map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("counts a receiver slower than the time limit as a failure", async () => {
    const { orgId } = await newKey();
    const { job } = await finishedJob(orgId, "/slow?ms=5000");
    const deliveryId = await pendingDelivery(job);
    const batch = createMessageBatch<WebhookMessage>("media-jobs-webhooks", [{ id: "slow", timestamp: new Date(), attempts: 1, body: { deliveryId } }]);
    const ctx = createExecutionContext();
    await consumeWebhooks(batch, testEnv, { timeoutMs: 300 });
    expect((await getQueueResult(batch, ctx)).retryMessages).toHaveLength(1);
    expect((await attemptRows(deliveryId))[0]).toMatchObject({ statusCode: null, error: "no response within 0.3 s" });
  });

  it("refuses, at delivery time, a URL that the address rules forbid, without connecting", async () => {
    const signed = await signDelivery("{}", "msg_x", ["whsec_abc"], Date.now());
    for (const url of ["http://169.254.169.254/latest/meta-data", `${receiver}/ok?id=never`]) {
      const result = await deliver(url, "{}", signed, { allowPrivate: false });
      expect(result).toMatchObject({ kind: "rejected", statusCode: null, error: expect.stringMatching(/^refused: /) });
    }
    expect(await recorded("never")).toEqual([]);
  });

  it("schedules one delivery when a job is finalized twice", async () => {
    const { orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/ok", { status: "queued" });
    // Two cancels at once: one ends the job and schedules its delivery, the other does nothing.
    const ended = await Promise.all([finishJob(testEnv, job.id, { status: "cancelled" }), finishJob(testEnv, job.id, { status: "cancelled" })]);
    expect(ended.sort()).toEqual([false, true]);
    // The cron's repair of a half-finished job schedules no second one either.
    expect(await scheduleFinalDelivery(testEnv, job.id)).toBeUndefined();
    const { results } = await testEnv.DB.prepare("SELECT id, trigger FROM webhook_deliveries WHERE job_id = ?").bind(job.id).all<{ id: string; trigger: string }>();
    expect(results).toEqual([{ id: expect.stringMatching(/^msg_/), trigger: "final" }]);
    // The real queue carries it to the receiver.
    await waitFor(async () => ((await deliveryRow(results[0]!.id))?.status === "succeeded" ? true : undefined), "the delivery to succeed");
    const requests = await recorded(tag);
    expect(requests).toHaveLength(1);
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ id: job.id, status: "cancelled", error: null });
  });

  it("sends both signatures for 24 h after the organization's secret is rotated, and each verifies alone", async () => {
    const { org, orgId } = await newKey();
    const { current: old } = await orgSecrets(orgId);
    const rotated = await call("POST", `/admin/orgs/${org}/webhook-secret/rotate`, { headers: adminHeaders });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.webhookSecret as string;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(fresh).not.toBe(old);
    expect(await orgSecrets(orgId)).toEqual({ current: fresh, previous: old });

    const { job, tag } = await finishedJob(orgId, "/ok");
    await drive(await pendingDelivery(job), 1);
    const [request] = await recorded(tag);
    const h = request!.headers;
    expect(h["x-service-signature"]!.split(" ")).toHaveLength(2);
    expect(h["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [old, fresh]) {
      await expect(sdk.verifyWebhook(request!.body, h, secret)).resolves.toMatchObject({ id: job.id });
      expect(new Webhook(secret).verify(request!.body, h)).toMatchObject({ id: job.id });
    }

    // A day later only the new secret signs.
    await testEnv.DB.prepare("UPDATE organizations SET webhook_secret_rotated_at = ? WHERE id = ?").bind(Date.now() - 24 * 3600_000 - 1000, orgId).run();
    await drive(await pendingDelivery((await finishedJob(orgId, "/ok")).job), 1);
    const later = await waitFor(async () => {
      const { results } = await testEnv.DB.prepare("SELECT url FROM webhook_deliveries WHERE org_id = ? AND status = 'succeeded' ORDER BY created_at DESC").bind(orgId).all<{ url: string }>();
      return results.length === 2 ? new URL(results[0]!.url).searchParams.get("id")! : undefined;
    }, "the second delivery");
    const [single] = await recorded(later);
    expect(single!.headers["x-service-signature"]!.split(" ")).toHaveLength(1);
    expect(() => new Webhook(old).verify(single!.body, single!.headers)).toThrow();
    expect(new Webhook(fresh).verify(single!.body, single!.headers)).toBeTruthy();
  });

  it("signs with the job's own secret, which Standard Webhooks verifies as is or as a raw key", async () => {
    const body = JSON.stringify({ id: "job_x" });
    const now = Date.now();
    // Base64 after an optional whsec_: decoded, as the Standard Webhooks libraries do.
    const base64Secret = "c2VjcmV0LWtleS1mb3ItdGhpcy1qb2I=";
    const a = await signDelivery(body, "msg_a", [base64Secret], now);
    expect(new Webhook(base64Secret).verify(body, a)).toEqual({ id: "job_x" });
    // Any other text: the key is its UTF-8 bytes, the same key as x-service-signature.
    const textSecret = "my own secret, not base64!";
    const b = await signDelivery(body, "msg_b", [textSecret], now);
    expect(new Webhook(textSecret, { format: "raw" }).verify(body, b)).toEqual({ id: "job_x" });
    await expect(sdk.verifyWebhook(body, { ...b }, textSecret)).resolves.toEqual({ id: "job_x" });

    const { orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/ok", { webhookSecret: textSecret });
    await drive(await pendingDelivery(job), 1);
    const [request] = await recorded(tag);
    expect(request!.headers["x-service-signature"]!.split(" ")).toHaveLength(1);
    await expect(sdk.verifyWebhook(request!.body, request!.headers, textSecret)).resolves.toMatchObject({ id: job.id });
    expect(new Webhook(textSecret, { format: "raw" }).verify(request!.body, request!.headers)).toMatchObject({ id: job.id });
  });
});

describe("the delivery log and redelivery", () => {
  it("redelivers a finished job as a new delivery and lists deliveries newest first", async () => {
    const { key, orgId } = await newKey();
    const { job, tag } = await finishedJob(orgId, "/ok");
    const first = await pendingDelivery(job);
    await drive(first, 1);
    const redelivered = await call("POST", `/v1/jobs/${job.id}/webhooks/redeliver`, { key });
    expect(redelivered.status).toBe(202);
    expect(redelivered.json).toMatchObject({ jobId: job.id, trigger: "redeliver", status: "pending", attemptCount: 0, attempts: [] });
    expect(redelivered.json.id).not.toBe(first);
    await waitFor(async () => ((await recorded(tag)).length === 2 ? true : undefined), "the redelivery");
    expect((await recorded(tag)).map((r) => r.headers["webhook-id"])).toEqual([first, redelivered.json.id]);
    const log = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${job.id}/webhooks`, { key });
      return res.json.data[0]?.status === "succeeded" ? res.json.data : undefined;
    }, "the redelivery to be logged");
    expect(log.map((d: any) => [d.id, d.trigger, d.status])).toEqual([
      [redelivered.json.id, "redeliver", "succeeded"],
      [first, "final", "succeeded"],
    ]);
  });

  it("refuses to redeliver a job without a webhookUrl or not finished, and hides other organizations' jobs", async () => {
    const { key, orgId } = await newKey();
    const none = await finishedJob(orgId, null);
    const queued = await finishedJob(orgId, "/ok", { status: "queued" });
    for (const id of [none.job.id, queued.job.id]) {
      const res = await call("POST", `/v1/jobs/${id}/webhooks/redeliver`, { key });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
    expect((await call("GET", `/v1/jobs/${none.job.id}/webhooks`, { key })).json).toEqual({ data: [] });

    const other = await newKey();
    for (const [method, path] of [["GET", "webhooks"], ["POST", "webhooks/redeliver"]] as const) {
      const res = await call(method, `/v1/jobs/${queued.job.id}/${path}`, { key: other.key });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("not_found");
    }
    const testMode = await newKey({ org: (await testEnv.DB.prepare("SELECT slug FROM organizations WHERE id = ?").bind(orgId).first<{ slug: string }>())!.slug, test: true });
    expect((await call("GET", `/v1/jobs/${queued.job.id}/webhooks`, { key: testMode.key })).status).toBe(404);
  });
});

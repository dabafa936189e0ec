// Destinations against a real S3-compatible server (s3rver, test/support/s3-setup.ts): the
// routes and their check, the secret at rest, and a job's store (single PUT and multipart),
// read back with an independent client (@aws-sdk/client-s3, in the helper). Store attempts
// beyond the first are driven here with createMessageBatch, so no test waits out a backoff.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client.ts";
import { storeObjectsOf } from "../../src/db/destinations.ts";
import { findJob } from "../../src/db/jobs.ts";
import { consumeDeadStore, consumeStore, sweepStores, type StoreMessage } from "../../src/destinations/store.ts";
import { sweepDeliveries } from "../../src/webhooks/schedule.ts";
import { openSecret } from "../../src/destinations/secret-box.ts";
import { outputKey } from "../../src/files/r2-keys.ts";
import { TUNABLES, type Tunables } from "../../src/lib/tunables.ts";
import { call, media, newKey, storedJob, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const s3 = testEnv as unknown as { S3_URL: string; S3_HELPER_URL: string; WEBHOOK_RECEIVER_URL: string };
const BUCKET = "media-jobs-dest";

function destinationBody(fields: Record<string, unknown> = {}) {
  return { name: "archive", endpoint: s3.S3_URL, bucket: BUCKET, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true, ...fields };
}

async function readBack(bucket: string, key: string): Promise<{ size: number; sha256: string; etag: string; contentType?: string } | undefined> {
  const response = await fetch(`${s3.S3_HELPER_URL}/object?bucket=${encodeURIComponent(bucket)}&key=${encodeURIComponent(key)}`);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`helper: ${response.status} ${await response.text()}`);
  return response.json();
}

async function events(bucket: string, key: string): Promise<string[]> {
  return (await fetch(`${s3.S3_HELPER_URL}/events?bucket=${encodeURIComponent(bucket)}&key=${encodeURIComponent(key)}`)).json();
}

async function sha256(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function withStore(store: Partial<Tunables["store"]>): Tunables {
  return { ...TUNABLES, store: { ...TUNABLES.store, ...store } } as Tunables;
}

async function runStoreMessage(jobId: string, attempts: number, tunables: Tunables) {
  const batch = createMessageBatch<StoreMessage>("media-jobs-store", [{ id: `s-${jobId}-${attempts}`, timestamp: new Date(), attempts, body: { jobId } }]);
  const ctx = createExecutionContext();
  await consumeStore(batch, testEnv, { tunables });
  return getQueueResult(batch, ctx);
}

describe("destinations API", () => {
  it("creates after a check write, never returns the secret, lists, gets, checks and deletes", async () => {
    const { key, orgId } = await newKey();
    const created = await call("POST", "/v1/destinations", { key, body: destinationBody() });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "archive", bucket: BUCKET, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKeyLast4: "RVER", forcePathStyle: true });
    expect(created.json.id).toMatch(/^dst_/);
    expect(created.text).not.toContain('"S3RVER"'.replace("S3RVER", "secretAccessKey\":\"S3RVER"));
    expect(Object.keys(created.json)).not.toContain("secretAccessKey");

    // At rest: sealed, opened only with the Worker's key and the row's own id.
    const row = await testEnv.DB.prepare("SELECT * FROM destinations WHERE id = ?").bind(created.json.id).first<{ secret_ciphertext: string; org_id: string }>();
    expect(row!.org_id).toBe(orgId);
    expect(row!.secret_ciphertext).toMatch(/^v1\./);
    expect(row!.secret_ciphertext).not.toContain("S3RVER");
    expect(await openSecret(testEnv.DESTINATIONS_KEY, created.json.id, row!.secret_ciphertext)).toBe("S3RVER");
    await expect(openSecret(testEnv.DESTINATIONS_KEY, "dst_other", row!.secret_ciphertext)).rejects.toThrow();
    await expect(openSecret("another-key-0123456789abcdef", created.json.id, row!.secret_ciphertext)).rejects.toThrow();

    const list = await call("GET", "/v1/destinations", { key });
    expect(list.json.data.map((d: { id: string }) => d.id)).toEqual([created.json.id]);
    expect(list.text).not.toMatch(/secretAccessKey"/);
    expect((await call("GET", `/v1/destinations/${created.json.id}`, { key })).json).toEqual(created.json);
    expect((await call("POST", `/v1/destinations/${created.json.id}/check`, { key })).json).toEqual({ ok: true });

    // Another organization sees none of it.
    const other = await newKey();
    expect((await call("GET", `/v1/destinations/${created.json.id}`, { key: other.key })).status).toBe(404);
    expect((await call("DELETE", `/v1/destinations/${created.json.id}`, { key: other.key })).status).toBe(404);
    const refused = await call("POST", "/v1/jobs", { key: other.key, body: { type: "compress-image", input: media("/image"), store: { destination: created.json.id } } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([{ path: "store.destination", message: expect.stringContaining(created.json.id) }]);

    expect((await call("DELETE", `/v1/destinations/${created.json.id}`, { key })).status).toBe(204);
    expect((await call("GET", `/v1/destinations/${created.json.id}`, { key })).status).toBe(404);
  });

  it("refuses a create whose check fails, naming the problem: unknown key, missing bucket, no server", async () => {
    const { key } = await newKey();
    const badKey = await call("POST", "/v1/destinations", { key, body: destinationBody({ accessKeyId: "NOPE" }) });
    expect(badKey.status).toBe(400);
    expect(badKey.json.error.details[0]).toMatchObject({ path: "accessKeyId", problem: "forbidden", status: 403, code: "InvalidAccessKeyId" });

    const noBucket = await call("POST", "/v1/destinations", { key, body: destinationBody({ bucket: "no-such-bucket" }) });
    expect(noBucket.status).toBe(400);
    expect(noBucket.json.error.details[0]).toMatchObject({ path: "bucket", problem: "bucket_missing", status: 404, code: "NoSuchBucket" });

    // A port nothing listens on (port 9 is discard, never served here).
    const unreachable = await call("POST", "/v1/destinations", { key, body: destinationBody({ endpoint: "http://127.0.0.1:9" }) });
    expect(unreachable.status).toBe(400);
    expect(unreachable.json.error.details[0]).toMatchObject({ path: "endpoint", problem: "unreachable" });

    const notUrl = await call("POST", "/v1/destinations", { key, body: destinationBody({ endpoint: "ftp://example.com" }) });
    expect(notUrl.status).toBe(400);
    expect(notUrl.json.error.details[0].path).toBe("endpoint");

    const missing = await call("POST", "/v1/destinations", { key, body: { name: "x" } });
    expect(missing.status).toBe(400);
    expect((await call("GET", "/v1/destinations", { key })).json.data).toEqual([]);
  });
});

describe("a job's store", () => {
  it("copies a completed job's outputs to the bucket under the prefix, then sends the final webhook with where they are", async () => {
    const { key } = await newKey();
    const destination = (await call("POST", "/v1/destinations", { key, body: destinationBody() })).json;
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image"), webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${tag}`, store: { destination: destination.id, prefix: `jobs/${tag}/` } },
    });
    expect(created.status).toBe(201);
    await waitForJob(key, created.json.id);
    const job = await waitFor(async () => {
      const got = (await call("GET", `/v1/jobs/${created.json.id}`, { key })).json;
      return got.store?.status === "pending" || got.store?.status === null ? undefined : got;
    }, "the store to end");
    expect(job.status).toBe("completed");
    expect(job.store).toMatchObject({ destination: destination.id, prefix: `jobs/${tag}/`, status: "stored" });
    expect(job.store.objects.length).toBeGreaterThan(0);
    for (const object of job.store.objects) {
      expect(object).toMatchObject({ status: "stored", error: null, key: `jobs/${tag}/${object.name}` });
      const r2 = await testEnv.OUTPUTS.get(outputKey(job.id, object.name));
      const bytes = await r2!.arrayBuffer();
      const copy = await readBack(BUCKET, object.key);
      expect(copy).toMatchObject({ size: bytes.byteLength, sha256: await sha256(bytes) });
      expect(object.size).toBe(bytes.byteLength);
      expect(object.etag).toBe(copy!.etag);
    }

    // The final webhook comes after the store, and says where the files went.
    const requests = await waitFor(async () => {
      const list = (await (await fetch(`${s3.WEBHOOK_RECEIVER_URL}/recorded?id=${tag}`)).json()) as { body: string }[];
      return list.length ? list : undefined;
    }, "the final webhook");
    const payload = JSON.parse(requests[0]!.body);
    expect(payload.status).toBe("completed");
    expect(payload.store.status).toBe("stored");
    expect(payload.store.objects.map((o: { key: string }) => o.key)).toEqual(job.store.objects.map((o: { key: string }) => o.key));
  });

  it("sends a large output as a multipart upload streamed in ranged parts", async () => {
    const { key, orgId } = await newKey();
    const destination = (await call("POST", "/v1/destinations", { key, body: destinationBody() })).json;
    const job = await storedJob(orgId, { status: "completed", completedAt: Date.now(), result: {}, storeDestinationId: destination.id, storePrefix: "big/", storeStatus: "pending" });
    const size = 11 * 1024 * 1024 + 12_345;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65_536)));
    await testEnv.OUTPUTS.put(outputKey(job.id, "video.mp4"), bytes, { httpMetadata: { contentType: "video/mp4" } });
    await testEnv.OUTPUTS.put(outputKey(job.id, "small.txt"), "small");

    const result = await runStoreMessage(job.id, 1, withStore({ multipartThresholdBytes: 1024 * 1024, partBytes: 5 * 1024 * 1024 }));
    expect(result.explicitAcks).toEqual([`s-${job.id}-1`]);
    const copy = await readBack(BUCKET, "big/video.mp4");
    expect(copy).toMatchObject({ size, sha256: await sha256(bytes), contentType: "video/mp4" });
    // Written by a completed multipart upload (s3rver's event for it), the small one by a PUT.
    expect(await events(BUCKET, "big/video.mp4")).toEqual(["ObjectCreated:Post"]);
    expect(await events(BUCKET, "big/small.txt")).toEqual(["ObjectCreated:Put"]);
    expect(await readBack(BUCKET, "big/small.txt")).toMatchObject({ size: 5 });
    expect((await findJob(database(testEnv.DB), job.id))!.storeStatus).toBe("stored");
    const rows = await storeObjectsOf(database(testEnv.DB), job.id);
    expect(rows.map((r) => [r.name, r.status, r.size])).toEqual([
      ["small.txt", "stored", 5],
      ["video.mp4", "stored", size],
    ]);
  });

  it("retries a store that fails, then ends failed with the error while the R2 output stays downloadable and retention keeps it meanwhile", async () => {
    const { key, orgId } = await newKey();
    const destination = (await call("POST", "/v1/destinations", { key, body: destinationBody({ bucket: "vanishing" }) })).json;
    expect(destination.id).toMatch(/^dst_/);
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image"), store: { destination: destination.id } } });
    expect(created.status).toBe(201);
    // The bucket goes away before the job completes; the first attempt (the real queue's) fails.
    expect((await fetch(`${s3.S3_HELPER_URL}/delete-bucket?bucket=vanishing`, { method: "POST" })).status).toBe(204);
    await waitForJob(key, created.json.id);
    const firstFailed = await waitFor(async () => {
      const rows = await storeObjectsOf(database(testEnv.DB), created.json.id);
      return rows.length && rows.every((r) => r.error) ? rows : undefined;
    }, "the first attempt to fail");
    expect(firstFailed[0]!.status).toBe("pending");
    expect(firstFailed[0]!.error).toMatch(/NoSuchBucket/);

    // Retention does not remove the outputs while the store is pending.
    const { applyRetention, retentionConfig } = await import("../../src/ops/retention.ts");
    const far = Date.now() + 400 * 24 * 3600_000;
    await applyRetention(database(testEnv.DB), testEnv.OUTPUTS, retentionConfig(""), far);
    expect(await findJob(database(testEnv.DB), created.json.id)).toBeDefined();

    const tunables = withStore({ maxAttempts: 3 });
    const second = await runStoreMessage(created.json.id, 2, tunables);
    // (getQueueResult does not report a retry's delay.)
    expect(second.retryMessages).toEqual([{ msgId: `s-${created.json.id}-2` }]);
    const last = await runStoreMessage(created.json.id, 3, tunables);
    expect(last.explicitAcks).toEqual([`s-${created.json.id}-3`]);

    const job = (await call("GET", `/v1/jobs/${created.json.id}`, { key })).json;
    expect(job.status).toBe("completed");
    expect(job.store.status).toBe("failed");
    for (const object of job.store.objects) {
      expect(object.status).toBe("failed");
      expect(object.error).toMatch(/404 NoSuchBucket/);
    }
    const download = await workerFetch(job.result.url);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(job.result.size);
    // A late or dead-lettered message changes nothing now.
    const dead = createMessageBatch<StoreMessage>("media-jobs-store-dlq", [{ id: "dead", timestamp: new Date(), attempts: 1, body: { jobId: created.json.id } }]);
    await consumeDeadStore(dead, testEnv);
    expect((await findJob(database(testEnv.DB), created.json.id))!.storeStatus).toBe("failed");
    expect(orgId).toBeTruthy();
  });
});

describe("the cron and a pending store", () => {
  it("resends a store with no attempt recorded for store.stalledAfterMs, and leaves its final webhook to the store", async () => {
    const { orgId } = await newKey();
    const now = Date.now();
    const completedAt = now - TUNABLES.store.stalledAfterMs - 60_000;
    const job = await storedJob(orgId, {
      status: "completed",
      completedAt,
      createdAt: completedAt - 1000,
      result: {},
      webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${crypto.randomUUID()}`,
      storeDestinationId: "dst_gone",
      storePrefix: "",
      storeStatus: "pending",
    });
    const recent = await storedJob(orgId, { status: "completed", completedAt: now, result: {}, storeDestinationId: "dst_gone", storePrefix: "", storeStatus: "pending" });
    // The webhook sweep's window (finished 10 min to 24 h ago) holds the first job, which has no delivery: the store's end sends it.
    await sweepDeliveries(testEnv, now);
    const deliveries = await testEnv.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = ?").bind(job.id).first<{ n: number }>();
    expect(deliveries!.n).toBe(0);

    const sent = await sweepStores(testEnv, now);
    expect(sent).toBeGreaterThanOrEqual(1);
    // The resent message reaches the consumer: the destination is gone, so the store fails and the webhook is scheduled then.
    await waitFor(async () => ((await findJob(database(testEnv.DB), job.id))!.storeStatus === "failed" ? true : undefined), "the resent store to end");
    const after = await testEnv.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = ?").bind(job.id).first<{ n: number }>();
    expect(after!.n).toBe(1);
    // A store completed just now is not resent by this sweep.
    expect((await findJob(database(testEnv.DB), recent.id))!.storeStatus).toBe("pending");
  });
});

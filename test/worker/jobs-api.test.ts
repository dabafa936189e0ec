// Listing, retrieval across organizations, cancel and idempotency.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import worker from "../../src/index.ts";
import { describe, expect, it } from "vitest";
import { call, media, newKey, processorState, testEnv, waitFor, waitForJob } from "./helpers.ts";

const image = (key: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=64&h=48"), ...extra } });

async function row(id: string) {
  return testEnv.DB.prepare("SELECT status, attempt, progress FROM jobs WHERE id = ?").bind(id).first<{ status: string; attempt: number; progress: number | null }>();
}

describe("GET /v1/jobs", () => {
  it("pages newest first with nextCursor and hasMore, filtered by status, stable while jobs arrive", async () => {
    const { key, orgId } = await newKey();
    // Rows inserted directly, with known times, so the order is certain.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = `job_list${String(i).padStart(20, "0")}`;
      ids.push(id);
      await testEnv.DB.prepare(
        "INSERT INTO jobs (id, org_id, mode, type, status, priority, params, created_at, completed_at, result) VALUES (?, ?, 'live', 'compressImage', ?, 5, '{}', ?, ?, ?)",
      )
        .bind(id, orgId, i === 2 ? "failed" : "completed", 1_700_000_000_000 + i * 1000, 1_700_000_000_500 + i * 1000, "{}")
        .run();
    }
    const first = await call("GET", "/v1/jobs?limit=2&status=completed", { key });
    expect(first.status).toBe(200);
    expect(first.json.data.map((j: { id: string }) => j.id)).toEqual([ids[4], ids[3]]);
    expect(first.json.hasMore).toBe(true);
    expect(first.json.nextCursor).toEqual(expect.any(String));

    // A job created between pages must not shift the next page.
    const between = await image(key);
    const second = await call("GET", `/v1/jobs?limit=2&status=completed&cursor=${first.json.nextCursor}`, { key });
    expect(second.json.data.map((j: { id: string }) => j.id)).toEqual([ids[1], ids[0]]);
    expect(second.json).toMatchObject({ hasMore: false, nextCursor: null });

    const all = await call("GET", "/v1/jobs", { key });
    expect(all.json.data).toHaveLength(6);
    expect(all.json.data[0].id).toBe(between.json.id);
  });

  it("keeps every job exactly once across pages under concurrent creates", async () => {
    const { key } = await newKey();
    await Promise.all(Array.from({ length: 12 }, () => image(key)));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { data: { id: string }[]; nextCursor: string | null } } = await call("GET", `/v1/jobs?limit=5${cursor ? `&cursor=${cursor}` : ""}`, { key });
      // More arrive while we page; none of them may appear on later pages.
      await image(key);
      seen.push(...page.json.data.map((j) => j.id));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
  });

  it("refuses a bad limit, status or cursor with invalid_input", async () => {
    const { key } = await newKey();
    for (const query of ["limit=0", "limit=101", "status=done", "cursor=garbage", "sort=asc"]) {
      const res = await call("GET", `/v1/jobs?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
  });

  it("never shows one organization's job to another, nor test jobs to live keys", async () => {
    const a = await newKey();
    const b = await newKey();
    const aTest = await newKey({ org: a.org, test: true });
    const created = await image(a.key);
    expect((await call("GET", `/v1/jobs/${created.json.id}`, { key: b.key })).status).toBe(404);
    expect((await call("GET", `/v1/jobs/${created.json.id}`, { key: aTest.key })).status).toBe(404);
    expect((await call("POST", `/v1/jobs/${created.json.id}/cancel`, { key: b.key })).status).toBe(404);
    expect((await call("GET", "/v1/jobs", { key: b.key })).json.data).toEqual([]);
    const missing = await call("GET", "/v1/jobs/job_doesnotexist000000000000", { key: a.key });
    expect(missing.json.error.code).toBe("not_found");
  });
});

describe("GET /v1/jobs/:id with Prefer: wait", () => {
  it("holds the request until the job is final and says how long it would have waited (capped)", async () => {
    const { key } = await newKey();
    const id = (await image(key)).json.id as string;
    const held = await call("GET", `/v1/jobs/${id}`, { key, headers: { prefer: "respond-async, wait=999" } });
    expect(held.status).toBe(200);
    expect(held.headers.get("preference-applied")).toBe("wait=60");
    expect(held.json).toMatchObject({ id, status: "completed" });
    const plain = await call("GET", `/v1/jobs/${id}`, { key });
    expect(plain.headers.get("preference-applied")).toBeNull();
  });

  it("answers with the running job when the wait is over; 50 held waits on one key get no 429", async () => {
    const { key } = await newKey();
    const id = (await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } })).json.id as string;
    await waitFor(async () => ((await processorState(`${id}.1`))?.state === "running" ? true : undefined), "the processor to run the job");
    const held = await Promise.all(Array.from({ length: 50 }, () => call("GET", `/v1/jobs/${id}`, { key, headers: { prefer: "wait=1" } })));
    expect(held.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(held.map((r) => r.headers.get("preference-applied")))).toEqual(new Set(["wait=1"]));
    expect(new Set(held.map((r) => r.json.status))).toEqual(new Set(["processing"]));
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
  });

  it("ignores a Prefer header without a wait", async () => {
    const { key } = await newKey();
    const id = (await image(key)).json.id as string;
    const res = await call("GET", `/v1/jobs/${id}`, { key, headers: { prefer: "return=minimal" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("preference-applied")).toBeNull();
  });
});

describe("GET /v1/jobs/:id/events", () => {
  it("streams the job's progress, then its end, as server-sent events", async () => {
    const { key } = await newKey();
    const id = (await image(key)).json.id as string;
    const res = await call("GET", `/v1/jobs/${id}/events`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = res.text
      .split("\n\n")
      .filter((block) => block.trim())
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
    expect(events.at(-1)).toMatchObject({ event: "end", data: { id, status: "completed" } });
    expect(events.slice(0, -1).every((e) => e.event === "progress" && e.data.id === id)).toBe(true);
  });

  it("answers 404 for another organization's job", async () => {
    const { key } = await newKey();
    const { key: other } = await newKey();
    const id = (await image(key)).json.id as string;
    expect((await call("GET", `/v1/jobs/${id}/events`, { key: other })).status).toBe(404);
    await waitForJob(key, id);
  });
});

describe("POST /v1/jobs/:id/cancel", () => {
  it("cancels a processing job and stops the processor's work", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const id = created.json.id as string;
    await waitFor(async () => ((await processorState(`${id}.1`))?.state === "running" ? true : undefined), "the processor to run the job");
    expect((await row(id))!.status).toBe("processing");

    const cancelled = await call("POST", `/v1/jobs/${id}/cancel`, { key });
    expect(cancelled.json).toEqual({ success: true, jobId: id });
    expect(await processorState(`${id}.1`)).toBeUndefined();
    const job = await call("GET", `/v1/jobs/${id}`, { key });
    expect(job.json).toMatchObject({ status: "cancelled", completedAt: expect.any(String) });

    const again = await call("POST", `/v1/jobs/${id}/cancel`, { key });
    expect(again.json).toEqual({ success: false, jobId: id, status: "cancelled" });
  });

  it("cancels a queued job so that its queue message starts nothing", async () => {
    const { key } = await newKey();
    const created = await image(key);
    const id = created.json.id as string;
    expect((await call("POST", `/v1/jobs/${id}/cancel`, { key })).json.success).toBe(true);
    const batch = createMessageBatch("media-jobs-jobs", [{ id: "m1", timestamp: new Date(), attempts: 1, body: { jobId: id } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, testEnv, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1"]);
    expect(await row(id)).toMatchObject({ status: "cancelled", attempt: 0 });
  });

  it("answers success false with the status for a finished job", async () => {
    const { key } = await newKey();
    const created = await image(key);
    const { job } = await waitForJob(key, created.json.id);
    expect(job.status).toBe("completed");
    const res = await call("POST", `/v1/jobs/${job.id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: false, jobId: job.id, status: "completed" });
  });
});

describe("Idempotency-Key", () => {
  it("replays the first response for the same key and body", async () => {
    const { key, orgId } = await newKey();
    const body = { type: "compress-image", input: media("/image") };
    const first = await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "order-1" } });
    const second = await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "order-1" } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("answers 422 for the same key with another body, 409 while the first is in flight", async () => {
    const { key, orgId } = await newKey();
    await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image") }, headers: { "idempotency-key": "k" } });
    const reused = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=10") }, headers: { "idempotency-key": "k" } });
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe("idempotency_key_reused");

    const body = JSON.stringify({ type: "compress-image", input: media("/image") });
    const hash = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body))), (b) => b.toString(16).padStart(2, "0")).join("");
    await testEnv.DB.prepare("INSERT INTO idempotency_keys (org_id, mode, key, request_hash, created_at) VALUES (?, 'live', 'busy', ?, ?)").bind(orgId, hash, Date.now()).run();
    const busy = await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "busy" } });
    expect(busy.status).toBe(409);
    expect(busy.json.error.code).toBe("idempotency_key_in_use");
  });

  it("scopes keys per organization and mode, and saves nothing for an invalid request", async () => {
    const a = await newKey();
    const b = await newKey();
    const aTest = await newKey({ org: a.org, test: true });
    const body = { type: "compress-image", input: media("/image") };
    const ids = await Promise.all([a, b, aTest].map(async ({ key }) => (await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "same" } })).json.id));
    expect(new Set(ids).size).toBe(3);

    const bad = { type: "compress-image", input: media("/image"), options: { quality: 0 } };
    expect((await call("POST", "/v1/jobs", { key: a.key, body: bad, headers: { "idempotency-key": "fixme" } })).status).toBe(400);
    const fixed = await call("POST", "/v1/jobs", { key: a.key, body: { ...bad, options: { quality: 50 } }, headers: { "idempotency-key": "fixme" } });
    expect(fixed.status).toBe(201);
  });
});

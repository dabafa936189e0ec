// Plan limits through the real API, limiter and processor: the hourly quota under a
// burst, concurrency per plan, fairness between organizations, priority order, a lost
// runner's slot, usage and plan changes.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { call, downloads, gated, media, newKey, processorState, releaseInTurn, testEnv, waitFor } from "./helpers.ts";

const limiter = (orgId: string, mode = "live") => testEnv.ORG_LIMITER.getByName(`${orgId}:${mode}`);
const admin = { authorization: `Bearer test-admin-token` };

/**
 * Waits until every one of `created` is completed, reading the key's list of completed jobs
 * (one request per poll, not one per job: tens of pollers would slow the jobs they watch).
 */
async function allCompleted(key: string, created: { json: { id: string } }[], deadlineMs: number) {
  const ids = created.map((r) => r.json.id);
  await waitFor(
    async () => {
      const list = await call("GET", "/v1/jobs?status=completed&limit=100", { key });
      const done = new Set(list.json.data.map((j: { id: string }) => j.id));
      return ids.every((id) => done.has(id)) ? true : undefined;
    },
    `${ids.length} jobs to complete`,
    deadlineMs,
  );
}

async function cancelAll(key: string) {
  for (const status of ["queued", "processing"]) {
    const list = await call("GET", `/v1/jobs?status=${status}&limit=100`, { key });
    await Promise.all(list.json.data.map((j: { id: string }) => call("POST", `/v1/jobs/${j.id}/cancel`, { key })));
  }
}

describe("the hourly quota", () => {
  it("lets exactly 100 of 101 parallel creates through on the free plan, with rate-limit headers", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const body = { type: "compress-image", input: media("/missing.jpg") };
    const results = await Promise.all(Array.from({ length: 101 }, () => call("POST", "/v1/jobs", { key, body })));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).toHaveLength(100);
    expect(refused).toHaveLength(1);
    const [no] = refused;
    expect(no!.json.error).toMatchObject({ code: "rate_limit_exceeded", details: { limit: 100, window: 3600, retryAfter: expect.any(Number) } });
    const retryAfter = Number(no!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(no!.headers.get("ratelimit-policy")).toBe('"jobs-per-hour";q=100;w=3600');
    expect(no!.headers.get("ratelimit")).toBe(`"jobs-per-hour";r=0;t=${retryAfter}`);
    expect(created[0]!.headers.get("ratelimit")).toMatch(/^"jobs-per-hour";r=\d+;t=\d+$/);
    const rows = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(rows!.n).toBe(100);

    // Test mode has its own window.
    const test = await newKey({ org: (await testEnv.DB.prepare("SELECT slug FROM organizations WHERE id = ?").bind(orgId).first<{ slug: string }>())!.slug, test: true });
    expect((await call("POST", "/v1/jobs", { key: test.key, body })).status).toBe(201);

    // The window moves on: make every admission an hour older.
    await runInDurableObject(limiter(orgId), (_instance, state) => {
      state.storage.sql.exec("UPDATE admissions SET at = at - 3600000");
    });
    const again = await call("POST", "/v1/jobs", { key, body });
    expect(again.status).toBe(201);
    expect(again.headers.get("ratelimit")).toMatch(/^"jobs-per-hour";r=99;/);
    await cancelAll(key);
  });
});

describe("concurrency", () => {
  it("keeps a free org at 2 and a pro org at 10 processing, without holding the pro org behind the free one", async () => {
    const free = await newKey({ plan: "free" });
    const pro = await newKey({ plan: "pro" });
    // More jobs than each plan's limit, not many more: 12 pro jobs must find 10 slots, 8 free
    // jobs 2 slots. Every download is held at the media server until the test ends it.
    const job = (tag: string, i: number) => ({ type: "compress-image", input: gated(tag, String(i)) });
    const freeTag = `free-${free.orgId}`;
    const proTag = `pro-${pro.orgId}`;
    const freeJobs = await Promise.all(Array.from({ length: 8 }, (_, i) => call("POST", "/v1/jobs", { key: free.key, body: job(freeTag, i) })));
    const proJobs = await Promise.all(Array.from({ length: 12 }, (_, i) => call("POST", "/v1/jobs", { key: pro.key, body: job(proTag, i) })));
    expect([...freeJobs, ...proJobs].every((r) => r.status === 201)).toBe(true);

    // Both plans fill their slots; the pro org's 12 then run to their end, 10 at a time,
    // while the free org's first two still hold theirs: nothing of the pro org waits on it.
    await waitFor(async () => {
      const [p, f] = await Promise.all([downloads(proTag), downloads(freeTag)]);
      return p.held.length >= 10 && f.held.length >= 2 ? true : undefined;
    }, "10 pro and 2 free jobs to run");
    const proDone = await releaseInTurn(proTag, proJobs.length, 10, ({ held }) => expect(held.length).toBeLessThanOrEqual(10));
    await allCompleted(pro.key, proJobs, 60_000);
    expect(proDone.max).toBe(10);
    const freeSoFar = await downloads(freeTag);
    expect(freeSoFar).toMatchObject({ max: 2, ends: [] });

    const freeDone = await releaseInTurn(freeTag, freeJobs.length, 2, ({ held }) => expect(held.length).toBeLessThanOrEqual(2));
    await allCompleted(free.key, freeJobs, 60_000);
    expect(freeDone.max).toBe(2);
    expect(freeDone.starts).toHaveLength(freeJobs.length);
  }, 120_000);

  it("starts waiting jobs in priority order, then oldest first, as slots free", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const tag = `prio-${orgId}`;
    const blockers = await Promise.all([1, 2].map(() => call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } })));
    for (const b of blockers) await waitFor(async () => ((await processorState(`${b.json.id}.1`))?.state === "running" ? true : undefined), "blockers to run");
    const priorities = [7, 3, 9, 1, 5, 3, 10, 2];
    for (const [i, priority] of priorities.entries()) {
      const res = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: gated(tag, `${priority}:${i}`), priority } });
      expect(res.status).toBe(201);
    }
    await waitFor(async () => ((await limiter(orgId).usage()).queued === priorities.length ? true : undefined), "all jobs to wait in line");
    for (const b of blockers) await call("POST", `/v1/jobs/${b.json.id}/cancel`, { key });
    // One job ends at a time once both slots are taken, so each slot that frees goes to the
    // best job still waiting, and its download starts before the next one ends.
    const seen = await releaseInTurn(tag, priorities.length, 2);
    const order = seen.starts.map((s) => s.label);
    const expected = priorities.map((priority, i) => ({ priority, i })).sort((p, q) => p.priority - q.priority || p.i - q.i).map((j) => `${j.priority}:${j.i}`);
    // The two freed by the blockers' cancels start together, in either order.
    expect(new Set(order.slice(0, 2))).toEqual(new Set(expected.slice(0, 2)));
    expect(order.slice(2)).toEqual(expected.slice(2));
  }, 90_000);

  it("never reclaims a slot whose job still runs, and gives a lost runner's slot to the next job", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const stall = () => call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const [a, b] = [await stall(), await stall()];
    for (const r of [a, b]) await waitFor(async () => ((await processorState(`${r.json.id}.1`))?.state === "running" ? true : undefined), "both to run");
    const waiting = await stall();
    await waitFor(async () => ((await limiter(orgId).usage()).queued === 1 ? true : undefined), "the third job to wait");

    // Both slots are past their check date, but both runners still have their jobs: nothing is reclaimed.
    const later = Date.now() + TUNABLES.limiter.slotLeaseMs + 1_000;
    await limiter(orgId).dispatch(later);
    expect(await limiter(orgId).usage(later)).toMatchObject({ processing: 2, queued: 1 });
    expect(await processorState(`${waiting.json.id}.1`)).toBeUndefined();

    // Job a's runner disappears: no alarm, no state, so it never releases its slot.
    await runInDurableObject(testEnv.JOB_RUNNER.getByName(a.json.id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
    const evenLater = later + TUNABLES.limiter.slotLeaseMs + 1_000;
    await limiter(orgId).dispatch(evenLater);
    await waitFor(async () => ((await processorState(`${waiting.json.id}.1`))?.state === "running" ? true : undefined), "the waiting job to start");
    expect((await limiter(orgId).usage(evenLater)).processing).toBe(2);
    expect((await processorState(`${b.json.id}.1`))?.state).toBe("running");
    await cancelAll(key);
  });
});

describe("usage and plans", () => {
  it("reports plan, limits and current use for the key's mode, and follows a plan change", async () => {
    const { key, org } = await newKey({ plan: "free" });
    await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const usage = await waitFor(async () => {
      const res = await call("GET", "/v1/usage", { key });
      return res.json.processing === 1 ? res.json : undefined;
    }, "the job to be processing");
    expect(usage).toMatchObject({
      plan: "free",
      mode: "live",
      billable: true,
      limits: { concurrentJobs: 2, jobsPerHour: 100, maxUploadBytes: 256 * 1024 ** 2, uploadsPerHour: 100, openUploads: 5, media: { adaptiveRenditions: 3, av1MaxSide: 1280, previewDurationS: 10 } },
      window: { seconds: 3600, jobs: 1, remaining: 99 },
      processing: 1,
      queued: 0,
      uploads: { inWindow: 0, remaining: 100, oldestLeavesInS: null, open: 0 },
    });
    // An upload of each kind counts in the hour; the resumable one stays open until it finishes.
    expect((await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "image/jpeg", size: 1000 } })).status).toBe(201);
    const tus = await call("POST", "/v1/uploads/tus", { key, headers: { "tus-resumable": "1.0.0", "upload-length": "1000", "upload-metadata": `filename ${btoa("b.jpg")},filetype ${btoa("image/jpeg")}` } });
    expect(tus.status).toBe(201);
    const withUploads = await call("GET", "/v1/usage", { key });
    expect(withUploads.json.uploads).toMatchObject({ inWindow: 2, remaining: 98, open: 1 });
    expect(withUploads.json.uploads.oldestLeavesInS).toBeGreaterThan(3590);
    expect(withUploads.json.uploads.oldestLeavesInS).toBeLessThanOrEqual(3600);
    // A test key of the same organization counts its own uploads: none.
    const { key: testKey } = await newKey({ org, test: true });
    expect((await call("GET", "/v1/usage", { key: testKey })).json).toMatchObject({ mode: "test", billable: false, uploads: { inWindow: 0, open: 0 } });

    const changed = await call("POST", `/admin/orgs/${org}/plan`, { headers: admin, body: { plan: "enterprise" } });
    expect(changed.json.org.plan).toBe("enterprise");
    const after = await call("GET", "/v1/usage", { key });
    expect(after.json).toMatchObject({ plan: "enterprise", limits: { concurrentJobs: 50, jobsPerHour: 10000, maxUploadBytes: 2 * 1024 ** 3, media: { adaptiveRenditions: 7, av1MaxSide: 2560 } } });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/missing.jpg") } });
    expect(created.headers.get("ratelimit-policy")).toBe('"jobs-per-hour";q=10000;w=3600');
    await cancelAll(key);
  });
});

// The bench's per-job counts (bench/worker/stats.ts), on the real bindings: D1 statements
// and Durable Object requests are tied to the job they are about; the bench's Worker
// (bench/worker/index.ts) serves them at /admin/stats, and the production Worker has no
// such route.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import benchWorker from "../../bench/worker/index.ts";
import { instrument, resetStats, statsSnapshot } from "../../bench/worker/stats.ts";
import { database } from "../../src/db/client.ts";
import { findJob } from "../../src/db/jobs.ts";
import { call, media, newKey, storedJob, testEnv } from "./helpers.ts";

const admin = { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` };

/** A request to the bench's Worker, with the test's bindings. */
async function benchFetch(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const request = new Request(`http://127.0.0.1:8787${path}`, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const ctx = createExecutionContext();
  const response = await benchWorker.fetch(request, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as any) : undefined };
}

describe("per-job counts", () => {
  beforeEach(() => resetStats());

  it("are not in the production Worker: it has no /admin/stats", async () => {
    const response = await call("GET", "/admin/stats", { headers: admin });
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe("not_found");
  });

  it("are served by the bench's Worker at /admin/stats, behind the admin token, and reset by DELETE", async () => {
    const { orgId } = await newKey();
    const job = await storedJob(orgId, { status: "completed" });
    await findJob(database(instrument(testEnv, "JobRunner").DB), job.id);

    const refused = await benchFetch("GET", "/admin/stats", { authorization: "Bearer wrong" });
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe("unauthorized");

    const read = await benchFetch("GET", "/admin/stats", admin);
    expect(read.status).toBe(200);
    expect(read.json.jobs[job.id]).toEqual({ d1: { JobRunner: 1 }, durableObjects: {}, requests: {} });

    expect((await benchFetch("DELETE", "/admin/stats", admin)).status).toBe(204);
    expect(statsSnapshot()).toEqual({ jobs: {}, unattributed: { d1: {}, durableObjects: {}, requests: {} } });
  });

  it("tie a statement to the job id it binds, and a request's statements to the job it names", async () => {
    const { key, orgId } = await newKey();
    const job = await storedJob(orgId, { status: "completed" });
    const db = database(instrument(testEnv, "JobRunner").DB);
    await findJob(db, job.id);
    await db.run(`SELECT 1`);
    expect(statsSnapshot().jobs[job.id]?.d1).toEqual({ JobRunner: 1 });
    expect(statsSnapshot().unattributed.d1).toEqual({ JobRunner: 1 });

    // GET /v1/jobs/:id: the key lookup binds no job id, but the request names the job.
    const read = await benchFetch("GET", `/v1/jobs/${job.id}`, { authorization: `Bearer ${key}` });
    expect(read.status).toBe(200);
    expect(statsSnapshot().jobs[job.id]?.d1["GET /v1/jobs/:id"]).toBeGreaterThanOrEqual(2);
  });

  it("count a create's statements and Durable Object calls for the job it creates", async () => {
    const { key } = await newKey();
    const created = await benchFetch("POST", "/v1/jobs", { authorization: `Bearer ${key}` }, { type: "compress-image", input: media("/image?w=64&h=48"), options: { quality: 70 } });
    expect(created.status).toBe(201);
    const stats = statsSnapshot().jobs[created.json.id]!;
    // The key lookup (before the job's id is bound anywhere) and the insert, at least.
    expect(stats.d1["POST /v1/jobs"]).toBeGreaterThanOrEqual(2);
    // admit and enqueue on the organization's limiter.
    expect(stats.durableObjects.ORG_LIMITER).toBeGreaterThanOrEqual(2);
    expect(statsSnapshot().unattributed.d1["POST /v1/jobs"]).toBeUndefined();
  });
});

// The bench's per-job counts (src/ops/stats.ts): off unless D1_STATS is "true"; when on,
// D1 statements and Durable Object requests are tied to the job they are about.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { database } from "../../src/db/client.ts";
import { findJob } from "../../src/db/jobs.ts";
import { instrument, resetStats, statsSnapshot } from "../../src/ops/stats.ts";
import { call, media, newKey, storedJob, testEnv } from "./helpers.ts";

const counting = { ...testEnv, D1_STATS: "true" } as Env;

async function fetchCounted(method: string, path: string, key: string, body?: unknown) {
  const request = new Request(`http://127.0.0.1:8787${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const ctx = createExecutionContext();
  const response = await app.fetch(request, instrument(counting, request), ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: (await response.json()) as any };
}

describe("per-job counts", () => {
  beforeEach(() => resetStats());

  it("are off unless D1_STATS is true: the env is returned as is and /admin/stats is not there", async () => {
    expect(instrument(testEnv, "cron")).toBe(testEnv);
    const response = await call("GET", "/admin/stats", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` } });
    expect(response.status).toBe(404);
    expect(response.json.error.message).toContain("D1_STATS");
  });

  it("tie a statement to the job id it binds, and a request's statements to the job it names", async () => {
    const { key, orgId } = await newKey();
    const job = await storedJob(orgId, { status: "completed" });
    const db = database(instrument(counting, "JobRunner").DB);
    await findJob(db, job.id);
    await db.run(`SELECT 1`);
    expect(statsSnapshot().jobs[job.id]?.d1).toEqual({ JobRunner: 1 });
    expect(statsSnapshot().unattributed.d1).toEqual({ JobRunner: 1 });

    // GET /v1/jobs/:id: the key lookup binds no job id, but the request names the job.
    const read = await fetchCounted("GET", `/v1/jobs/${job.id}`, key);
    expect(read.status).toBe(200);
    expect(statsSnapshot().jobs[job.id]?.d1["GET /v1/jobs/:id"]).toBeGreaterThanOrEqual(2);
  });

  it("count a create's statements and Durable Object calls for the job it creates", async () => {
    const { key } = await newKey();
    const created = await fetchCounted("POST", "/v1/jobs", key, { type: "compress-image", input: media("/image?w=64&h=48"), options: { quality: 70 } });
    expect(created.status).toBe(201);
    const stats = statsSnapshot().jobs[created.json.id]!;
    // The key lookup (before the job's id is bound anywhere) and the insert, at least.
    expect(stats.d1["POST /v1/jobs"]).toBeGreaterThanOrEqual(2);
    // admit and enqueue on the organization's limiter.
    expect(stats.durableObjects.ORG_LIMITER).toBeGreaterThanOrEqual(2);
    expect(statsSnapshot().unattributed.d1["POST /v1/jobs"]).toBeUndefined();
  });
});

// Operations: retention and the stuck-job sweeper on real rows and R2 objects with an
// injected clock, health, and request ids.
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { database } from "../../src/db/client.ts";
import { LEASE_MS } from "../../src/db/jobs.ts";
import { DEFAULT_RETENTION } from "../../src/limits/retention.ts";
import { applyRetention, retentionConfig } from "../../src/ops/retention.ts";
import { sweep } from "../../src/runner/sweeper.ts";
import { sweepDeliveries } from "../../src/webhooks/schedule.ts";
import { call, newKey, testEnv } from "./helpers.ts";

const DAY = 86_400_000;

async function insertJob(orgId: string, id: string, fields: { status: string; createdAt: number; completedAt?: number; attempt?: number; lease?: number }) {
  await testEnv.DB.prepare(
    "INSERT INTO jobs (id, org_id, mode, type, status, priority, params, created_at, completed_at, attempt, lease_expires_at, result) VALUES (?, ?, 'live', 'compressImage', ?, 5, '{}', ?, ?, ?, ?, ?)",
  )
    .bind(id, orgId, fields.status, fields.createdAt, fields.completedAt ?? null, fields.attempt ?? 0, fields.lease ?? null, fields.status === "completed" ? '{"url":"image.jpg"}' : null)
    .run();
  if (fields.status === "completed") await testEnv.OUTPUTS.put(`outputs/${id}/image.jpg`, "bytes");
}

const row = (id: string) => testEnv.DB.prepare("SELECT status, error_code, outputs_deleted_at FROM jobs WHERE id = ?").bind(id).first<Record<string, unknown>>();

describe("retention", () => {
  it("removes outputs after 7 days and job rows after 30, in bounded batches, leaving recent ones", async () => {
    const { orgId } = await newKey({ plan: "free" });
    const now = 1_900_000_000_000;
    await insertJob(orgId, "job_retention_recent_000000", { status: "completed", createdAt: now - 2 * DAY, completedAt: now - 2 * DAY });
    await insertJob(orgId, "job_retention_old_output_00", { status: "completed", createdAt: now - 8 * DAY, completedAt: now - 8 * DAY });
    await insertJob(orgId, "job_retention_old_row_00000", { status: "completed", createdAt: now - 31 * DAY, completedAt: now - 31 * DAY });
    await insertJob(orgId, "job_retention_old_failed_00", { status: "failed", createdAt: now - 31 * DAY, completedAt: now - 31 * DAY });
    await testEnv.DB.prepare("INSERT INTO webhook_deliveries (id, job_id, org_id, trigger, url, created_at) VALUES ('msg_retention', 'job_retention_old_row_00000', ?, 'final', 'https://example.com', ?)").bind(orgId, now).run();

    const report = await applyRetention(database(testEnv.DB), testEnv.OUTPUTS, DEFAULT_RETENTION, now);
    expect(report.jobsDeleted).toBeGreaterThanOrEqual(2);

    expect(await row("job_retention_recent_000000")).toMatchObject({ status: "completed", outputs_deleted_at: null });
    expect(await testEnv.OUTPUTS.head("outputs/job_retention_recent_000000/image.jpg")).not.toBeNull();
    expect(await row("job_retention_old_output_00")).toMatchObject({ status: "completed", outputs_deleted_at: now });
    expect(await testEnv.OUTPUTS.head("outputs/job_retention_old_output_00/image.jpg")).toBeNull();
    expect(await row("job_retention_old_row_00000")).toBeNull();
    expect(await row("job_retention_old_failed_00")).toBeNull();
    expect(await testEnv.OUTPUTS.head("outputs/job_retention_old_row_00000/image.jpg")).toBeNull();
    expect(await testEnv.DB.prepare("SELECT 1 FROM webhook_deliveries WHERE id = 'msg_retention'").first()).toBeNull();
  });

  it("keeps outputs longer for a plan configured so", async () => {
    const { orgId } = await newKey({ plan: "enterprise" });
    const now = 1_900_000_000_000;
    await insertJob(orgId, "job_retention_enterprise_00", { status: "completed", createdAt: now - 8 * DAY, completedAt: now - 8 * DAY });
    await applyRetention(database(testEnv.DB), testEnv.OUTPUTS, retentionConfig('{"enterprise":{"outputsDays":30,"jobsDays":90}}'), now);
    expect(await testEnv.OUTPUTS.head("outputs/job_retention_enterprise_00/image.jpg")).not.toBeNull();
  });
});

describe("the stuck-job sweeper", () => {
  it("pokes a job whose lease just ran out, and fails one stuck past a second lease", async () => {
    const { orgId } = await newKey();
    const now = Date.now();
    await insertJob(orgId, "job_sweep_recent_lease_0000", { status: "processing", createdAt: now - 60_000, attempt: 1, lease: now - 1000 });
    await insertJob(orgId, "job_sweep_stuck_0000000000", { status: "processing", createdAt: now - 600_000, attempt: 1, lease: now - 2 * LEASE_MS });
    await sweep(testEnv, now);
    expect(await row("job_sweep_recent_lease_0000")).toMatchObject({ status: "processing" });
    expect(await row("job_sweep_stuck_0000000000")).toMatchObject({ status: "failed", error_code: "processing_interrupted" });
    // The next sweep, a lease later, finds the first one still stuck.
    await sweep(testEnv, now + 2 * LEASE_MS);
    expect(await row("job_sweep_recent_lease_0000")).toMatchObject({ status: "failed", error_code: "processing_interrupted" });
  });
});

describe("health and request ids", () => {
  it("reports D1, R2 and the processor with its tool versions", async () => {
    const res = await call("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, checks: { d1: { ok: true }, r2: { ok: true }, processor: { ok: true, mode: "local", tools: { ffmpeg: expect.any(String) } } } });
  });

  it("reports a stopped processor as unhealthy with 503", async () => {
    const res = await app.request("/healthz", {}, { ...testEnv, PROCESSOR_URL: "http://127.0.0.1:9" });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ok: boolean; checks: { processor: { ok: boolean; error: string } } };
    expect(body.ok).toBe(false);
    expect(body.checks.processor.ok).toBe(false);
  });

  it("echoes a given x-request-id in headers and error bodies, and makes one otherwise", async () => {
    const given = await call("GET", "/v1/jobs", { headers: { "x-request-id": "req-abc-123" } });
    expect(given.headers.get("x-request-id")).toBe("req-abc-123");
    expect(given.json.error.requestId).toBe("req-abc-123");
    const made = await call("GET", "/v1/jobs");
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("the webhook sweep", () => {
  it("schedules the missing final delivery of a finished job and resends one that never had an attempt", async () => {
    const { orgId } = await newKey();
    const now = Date.now();
    await insertJob(orgId, "job_sweep_webhook_missing_0", { status: "failed", createdAt: now - 3_600_000, completedAt: now - 30 * 60_000 });
    await testEnv.DB.prepare("UPDATE jobs SET webhook_url = 'https://example.com/hook' WHERE id = 'job_sweep_webhook_missing_0'").run();
    await sweepDeliveries(testEnv, now);
    const scheduled = await testEnv.DB.prepare("SELECT \"trigger\", status FROM webhook_deliveries WHERE job_id = 'job_sweep_webhook_missing_0'").all();
    expect(scheduled.results).toEqual([{ trigger: "final", status: "pending" }]);
    // A second sweep schedules nothing more.
    await sweepDeliveries(testEnv, now + 1000);
    const again = await testEnv.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = 'job_sweep_webhook_missing_0'").first<{ n: number }>();
    expect(again!.n).toBe(1);
  });
});

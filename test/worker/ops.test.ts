// Operations: retention and the stuck-job sweeper on real rows and R2 objects with an
// injected clock, health, and request ids.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { database } from "../../src/db/client.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { instanceName } from "../../src/limits/pool-plan.ts";
import { DEFAULT_RETENTION } from "../../src/limits/retention.ts";
import { applyRetention, retentionConfig } from "../../src/ops/retention.ts";
import { newAttemptToken } from "../../src/runner/credentials.ts";
import { finishJob } from "../../src/runner/finish.ts";
import type { Attempt } from "../../src/runner/job-runner.ts";
import { sweep } from "../../src/runner/sweeper.ts";
import { sweepDeliveries } from "../../src/webhooks/schedule.ts";
import { call, media, newKey, processorState, protocolHeader, testEnv } from "./helpers.ts";

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

  it("keeps a finished job's row (and its deliveries) until its webhook retry schedule has ended", () => {
    const { retryDelaysS, retryJitterRatio, maxAttempts, attemptTimeoutMs } = TUNABLES.webhooks;
    const scheduleMs = retryDelaysS.reduce((sum, s) => sum + s * 1000 * (1 + retryJitterRatio), 0) + maxAttempts * attemptTimeoutMs;
    for (const { jobsDays } of Object.values(DEFAULT_RETENTION)) expect(scheduleMs).toBeLessThan(jobsDays * DAY);
  });

  it("removes every file of a folder output, though the result names only its playlist", async () => {
    const { orgId } = await newKey({ plan: "free" });
    const now = 1_900_000_000_000;
    const id = "job_retention_stream_000000";
    await testEnv.DB.prepare(
      "INSERT INTO jobs (id, org_id, mode, type, status, priority, params, created_at, completed_at, attempt, result) VALUES (?, ?, 'live', 'compressImage', 'completed', 5, '{}', ?, ?, 1, ?)",
    )
      .bind(id, orgId, now - 8 * DAY, now - 8 * DAY, '{"url":"stream/master.m3u8","mp4":{"url":"video.mp4"}}')
      .run();
    const keys = ["stream/master.m3u8", "stream/360p.m3u8", "stream/360p.mp4", "video.mp4"].map((name) => `outputs/${id}/${name}`);
    for (const key of keys) await testEnv.OUTPUTS.put(key, "bytes");
    await applyRetention(database(testEnv.DB), testEnv.OUTPUTS, DEFAULT_RETENTION, now);
    expect(await row(id)).toMatchObject({ status: "completed", outputs_deleted_at: now });
    expect((await testEnv.OUTPUTS.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
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
  const period = TUNABLES.sweep.cronPeriodMs;

  it("sweeping once per cron period, pokes every stuck job at the first sweep that sees it and fails it at the next", async () => {
    const { orgId } = await newKey();
    // The cron's scheduled times, as production passes them: s0, s0 + period, s0 + 2 periods.
    const s0 = Math.floor(Date.now() / period) * period + 100 * period;
    // Runners that stop renewing at moments spread over one period after s0 (none has state, so a poke revives nothing).
    const offsets = [0, 1, 1_000, 60_000, period / 2, period - 1];
    const ids = offsets.map((_, i) => `job_sweep_cron_${String(i).padStart(12, "0")}`);
    for (const [i, id] of ids.entries()) {
      await insertJob(orgId, id, { status: "processing", createdAt: s0 - period, attempt: 1, lease: s0 + offsets[i]! });
    }

    await sweep(testEnv, s0);
    for (const id of ids) expect(await row(id)).toMatchObject({ status: "processing" });
    // Each lease expired at most one period ago: each job is poked, none is failed.
    await sweep(testEnv, s0 + period);
    for (const id of ids) expect(await row(id), id).toMatchObject({ status: "processing" });
    // Still expired a period later: each is failed.
    await sweep(testEnv, s0 + 2 * period);
    for (const id of ids) expect(await row(id), id).toMatchObject({ status: "failed", error_code: "processing_interrupted" });
  });

  it("a poke makes a runner whose alarm was lost check on its attempt, and a job its runner holds is never failed", async () => {
    const { orgId } = await newKey();
    const now = Date.now();
    const id = `job_sweep_revived_${now.toString(36)}`;
    const pid = `${id}.1`;
    await insertJob(orgId, id, { status: "processing", createdAt: now - 10 * 60_000, attempt: 1, lease: now - 1_000 });
    // The attempt runs on the processor, and the runner holds it, but no alarm will fire.
    const token = newAttemptToken();
    const nowhere = "http://127.0.0.1:9";
    const started = await fetch(`${testEnv.PROCESSOR_URL}/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${testEnv.PROCESSOR_TOKEN}`, "content-type": "application/json", ...protocolHeader },
      body: JSON.stringify({ id: pid, type: "compressImage", params: { url: media("/stall") }, callback: { url: `${nowhere}/e`, token, outputs: `${nowhere}/o` } }),
    });
    expect(started.ok).toBe(true);
    // Kept as a deploy before the runner's one state did (src/runner/state.ts fromOldKeys reads it).
    const attempt: Attempt & { started: boolean } = {
      jobId: id,
      orgId,
      mode: "live",
      type: "compressImage",
      attempt: 1,
      pid,
      instance: instanceName(0),
      // An attempt begun before the runner kept tokens has none, and is lost at its first check.
      token,
      started: true,
      failures: 0,
      progress: 0,
      progressWrittenAt: 0,
      progressWritten: 0,
    };
    const runner = testEnv.JOB_RUNNER.getByName(id);
    await runInDurableObject(runner, (_instance, state) => state.storage.put("attempt", attempt));

    await sweep(testEnv, now);
    expect(await row(id)).toMatchObject({ status: "processing" });
    expect(await runInDurableObject(runner, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    // Long past the poke window the runner still holds the attempt: the job keeps running.
    await sweep(testEnv, now + 3 * period);
    expect(await row(id)).toMatchObject({ status: "processing" });
    expect((await processorState(pid, token))?.state).toBe("running");

    expect(await finishJob(testEnv, id, { status: "cancelled" })).toBe(true);
    expect(await processorState(pid, token)).toBeUndefined();
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

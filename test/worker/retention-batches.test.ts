// Retention over more rows than a batch, with small limits so that a run ends before the
// backlog does: each run removes at most its share, the next resumes, recent rows stay;
// and every query the cron and the create path make walks an index (EXPLAIN QUERY PLAN).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { database } from "../../src/db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../../src/db/idempotency.ts";
import { DEFAULT_RETENTION } from "../../src/limits/retention.ts";
import { applyRetention, dueJobsQuery, dueOutputsQuery, dueWorkflowsWhere } from "../../src/ops/retention.ts";
import { MISSING_WORKFLOW_DELIVERIES } from "../../src/webhooks/schedule.ts";
import { instrument, resetStats, statsSnapshot } from "../../bench/worker/stats.ts";
import { sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { media, newKey, testEnv } from "./helpers.ts";

const DAY = 86_400_000;
const NOW = 1_950_000_000_000;
const limits = { batchSize: 10, maxBatchesPerRun: 2 };

async function insertJobs(orgId: string, prefix: string, count: number, fields: { status: string; createdAt: number; completedAt: number }) {
  const ids = Array.from({ length: count }, (_, i) => `job_${prefix}${String(i).padStart(24 - prefix.length, "0")}`);
  await testEnv.DB.batch(
    ids.map((id) =>
      testEnv.DB.prepare(
        "INSERT INTO jobs (id, org_id, mode, type, status, priority, params, created_at, completed_at, result) VALUES (?, ?, 'live', 'videoExtraction', ?, 5, '{}', ?, ?, ?)",
      ).bind(id, orgId, fields.status, fields.createdAt, fields.completedAt, fields.status === "completed" ? '{"audio":{"url":"audio.mp3"},"frames":[{"url":"frame-1.jpg"},{"url":"frame-2.jpg"}]}' : null),
    ),
  );
  for (const id of ids) if (fields.status === "completed") for (const name of ["audio.mp3", "frame-1.jpg", "frame-2.jpg"]) await testEnv.OUTPUTS.put(`outputs/${id}/${name}`, "bytes");
  return ids;
}

const count = async (where: string, ...params: unknown[]) => (await testEnv.DB.prepare(`SELECT count(*) AS n FROM jobs WHERE ${where}`).bind(...params).first<{ n: number }>())!.n;
const objects = async (ids: string[]) => {
  let n = 0;
  for (const id of ids) n += (await testEnv.OUTPUTS.list({ prefix: `outputs/${id}/` })).objects.length;
  return n;
};

describe("retention in batches", () => {
  it("removes at most batchSize × maxBatchesPerRun per kind and run, resumes on the next run, and keeps what is not due", async () => {
    const { orgId } = await newKey({ plan: "pro" });
    const dueOutputs = await insertJobs(orgId, "rbout", 27, { status: "completed", createdAt: NOW - 9 * DAY, completedAt: NOW - 8 * DAY });
    const recent = await insertJobs(orgId, "rbnew", 3, { status: "completed", createdAt: NOW - 2 * DAY, completedAt: NOW - 2 * DAY });
    const dueRows = await insertJobs(orgId, "rbold", 23, { status: "failed", createdAt: NOW - 31 * DAY, completedAt: NOW - 31 * DAY });
    const oldCompleted = await insertJobs(orgId, "rbgone", 2, { status: "completed", createdAt: NOW - 40 * DAY, completedAt: NOW - 40 * DAY });
    const db = database(testEnv.DB);

    // Outputs: 27 + 2 due; rows: 23 + 2 due, oldest first (the 40-day-old ones go in the first batch).
    const first = await applyRetention(db, testEnv.OUTPUTS, DEFAULT_RETENTION, NOW, limits);
    expect(first).toMatchObject({ outputsDeleted: 20, jobsDeleted: 20 });
    expect(await count("id IN (SELECT value FROM json_each(?)) AND outputs_deleted_at IS NULL", JSON.stringify(dueOutputs))).toBe(27 - 18);
    expect(await objects(oldCompleted)).toBe(0);

    const second = await applyRetention(db, testEnv.OUTPUTS, DEFAULT_RETENTION, NOW, limits);
    expect(second).toMatchObject({ outputsDeleted: 9, jobsDeleted: 5 });
    const third = await applyRetention(db, testEnv.OUTPUTS, DEFAULT_RETENTION, NOW, limits);
    expect(third).toMatchObject({ outputsDeleted: 0, jobsDeleted: 0 });

    // Due outputs gone from R2 and marked; their rows stay (30 days); the failed rows are gone.
    expect(await objects(dueOutputs)).toBe(0);
    expect(await count("id IN (SELECT value FROM json_each(?)) AND outputs_deleted_at = ?", JSON.stringify(dueOutputs), NOW)).toBe(27);
    expect(await count("id IN (SELECT value FROM json_each(?))", JSON.stringify([...dueRows, ...oldCompleted]))).toBe(0);
    // Recent jobs keep their rows and every output.
    expect(await count("id IN (SELECT value FROM json_each(?)) AND outputs_deleted_at IS NULL", JSON.stringify(recent))).toBe(3);
    expect(await objects(recent)).toBe(9);
  });

  it("makes a bounded number of D1 statements per batch", async () => {
    const { orgId } = await newKey({ plan: "free" });
    await insertJobs(orgId, "rbstm", 25, { status: "completed", createdAt: NOW - 10 * DAY, completedAt: NOW - 10 * DAY });
    resetStats();
    const counted = instrument(testEnv, "cron");
    // Earlier tests' jobs may be due as well: count statements, not rows.
    await applyRetention(database(counted.DB), counted.OUTPUTS, DEFAULT_RETENTION, NOW, limits);
    const { jobs, unattributed } = statsSnapshot();
    const statements = Object.values(jobs).reduce((n, s) => n + (s.d1.cron ?? 0), 0) + (unattributed.d1.cron ?? 0);
    // Per kind: at most 2 batches of (select, update or delete) and one empty select; workflows and sessions: at most 2 deletes each.
    expect(statements).toBeLessThanOrEqual(2 * 3 + 2 * 3 + 2 + 2);
  });

  it("deletes expired idempotency keys in bounded statements", async () => {
    const stmts = Array.from({ length: 30 }, (_, i) =>
      testEnv.DB.prepare("INSERT INTO idempotency_keys (org_id, mode, key, request_hash, created_at) VALUES ('org_idem_batches', 'live', ?, 'h', ?)").bind(`k${i}`, i < 25 ? 1 : NOW),
    );
    await testEnv.DB.batch(stmts);
    const removed = await deleteExpiredIdempotencyKeys(testEnv.DB, NOW);
    expect(removed).toBeGreaterThanOrEqual(25);
    const left = await testEnv.DB.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE org_id = 'org_idem_batches'").first<{ n: number }>();
    expect(left!.n).toBe(5);
  });
});

/** EXPLAIN QUERY PLAN's lines for a statement. */
async function plan(query: { sql: string; params: unknown[] }): Promise<string[]> {
  const rows = await testEnv.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).bind(...query.params).all<{ detail: string }>();
  return rows.results.map((r) => r.detail);
}

/** A table read that walks the whole table or a whole index. */
const scans = (lines: string[]) => lines.filter((line) => /^SCAN (?!CONSTANT)/.test(line) && !/json_each/.test(line));

describe("query plans", () => {
  it("retention walks its indexes, not the jobs table", async () => {
    const dialect = new SQLiteAsyncDialect();
    for (const query of [dueOutputsQuery(DEFAULT_RETENTION, NOW, 50), dueJobsQuery(DEFAULT_RETENTION, NOW, 50)]) {
      const lines = await plan(dialect.sqlToQuery(query));
      expect(lines.join("\n")).toMatch(/USING INDEX jobs_(outputs_due|created) \((completed|created)_at<\?\)/);
      expect(scans(lines)).toEqual([]);
    }
  });

  it("workflow retention and the workflow webhook sweep walk their indexes, not the workflows table", async () => {
    const dialect = new SQLiteAsyncDialect();
    const retention = await plan(dialect.sqlToQuery(sql`SELECT rowid FROM workflows WHERE ${dueWorkflowsWhere(DEFAULT_RETENTION, NOW)} LIMIT 50`));
    expect(retention.join("\n")).toMatch(/USING INDEX workflows_created \(created_at<\?\)/);
    expect(scans(retention)).toEqual([]);
    const sweep = await plan({ sql: MISSING_WORKFLOW_DELIVERIES, params: [NOW - DAY, NOW, 50] });
    expect(sweep.join("\n")).toMatch(/USING INDEX workflows_webhook_ended \(ended_at>\? AND ended_at<\?\)/);
    expect(scans(sweep)).toEqual([]);
  });

  it("every statement of POST /v1/jobs (with an Idempotency-Key) is an index lookup", async () => {
    const { key } = await newKey();
    const seen: { sql: string; params: unknown[] }[] = [];
    const recording = new Proxy(testEnv.DB, {
      get(target, name) {
        if (name !== "prepare") return Reflect.get(target, name);
        return (sql: string) => {
          const entry = { sql, params: [] as unknown[] };
          seen.push(entry);
          const statement = target.prepare(sql);
          return new Proxy(statement, {
            get(s, k) {
              if (k !== "bind") return Reflect.get(s, k);
              return (...params: unknown[]) => {
                entry.params = params;
                return s.bind(...params);
              };
            },
          });
        };
      },
    });
    const request = new Request("http://127.0.0.1:8787/v1/jobs", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `plans-${Date.now()}` },
      body: JSON.stringify({ type: "compress-image", input: media("/image?w=64&h=48"), options: { quality: 70 }, metadata: { batch: "plans" } }),
    });
    const ctx = createExecutionContext();
    const response = await app.fetch(request, { ...testEnv, DB: recording }, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(201);
    const reads = seen.filter((s) => /^\s*(select|update|delete)/i.test(s.sql));
    // The key is looked up once (its middleware is mounted once for the path).
    expect(reads.filter((s) => /from "api_keys"/.test(s.sql))).toHaveLength(1);
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const statement of reads) expect({ sql: statement.sql, scans: scans(await plan(statement)) }).toEqual({ sql: statement.sql, scans: [] });
  });
});

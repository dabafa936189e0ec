// Job rows and their state changes: each change is one guarded UPDATE that names the states
// (and attempt) it may start from, and says whether it took effect.
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { JobErrorCode, JobStatus } from "../contract/job.ts";
import type { JobType } from "../contract/names.ts";
import { TUNABLES } from "../lib/tunables.ts";
import type { Db } from "./client.ts";
import { jobMetadata, jobs, type JobRow, type Mode } from "./schema.ts";

/** The job and its metadata pairs (for list filters), in one batch: both or neither. */
export async function insertJob(db: Db, row: typeof jobs.$inferInsert): Promise<JobRow> {
  const pairs = Object.entries(row.metadata ?? {}).map(([key, value]) => ({ jobId: row.id, orgId: row.orgId, mode: row.mode, key, value }));
  const insert = db.insert(jobs).values(row).returning();
  if (!pairs.length) return (await insert)[0]!;
  const [inserted] = await db.batch([insert, db.insert(jobMetadata).values(pairs)]);
  return inserted[0]!;
}

/** Removes the job row; its webhook deliveries, their attempts and its metadata pairs go with it (ON DELETE CASCADE). */
export async function deleteJobRow(db: Db, id: string): Promise<boolean> {
  return changed(db.delete(jobs).where(eq(jobs.id, id)).run());
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return (await db.select().from(jobs).where(eq(jobs.id, id)))[0];
}

/** The organization's job `id`; never a part of a fanned-out job (docs/fanout.md), which no one but its runner sees. */
export async function findOrgJob(db: Db, orgId: string, mode: Mode, id: string): Promise<JobRow | undefined> {
  return (await db.select().from(jobs).where(and(eq(jobs.id, id), eq(jobs.orgId, orgId), eq(jobs.mode, mode), isNull(jobs.parentJobId))))[0];
}

/** The API lists one mode; the dashboard may list both, and filter by type. */
export interface ListQuery {
  orgId: string;
  mode?: Mode;
  status?: JobStatus;
  type?: JobType;
  /** Created at or after / before, epoch milliseconds. */
  createdGte?: number;
  createdLt?: number;
  /** Every pair must be in the job's metadata. */
  metadata?: Record<string, string>;
  limit: number;
  /** Only jobs strictly older than this (createdAt, id) position. */
  before?: { createdAt: number; id: string };
}

/** Newest first; asks for one extra row so the caller knows whether there is more. */
export async function listJobs(db: Db, q: ListQuery): Promise<JobRow[]> {
  const conditions: SQL[] = [eq(jobs.orgId, q.orgId), isNull(jobs.parentJobId)];
  if (q.mode) conditions.push(eq(jobs.mode, q.mode));
  if (q.status) conditions.push(eq(jobs.status, q.status));
  if (q.type) conditions.push(eq(jobs.type, q.type));
  if (q.createdGte !== undefined) conditions.push(gte(jobs.createdAt, q.createdGte));
  if (q.createdLt !== undefined) conditions.push(lt(jobs.createdAt, q.createdLt));
  for (const [key, value] of Object.entries(q.metadata ?? {})) {
    // Each pair is a lookup in job_metadata_lookup (org, mode, key, value).
    const matching = db
      .select({ id: jobMetadata.jobId })
      .from(jobMetadata)
      .where(and(eq(jobMetadata.orgId, q.orgId), q.mode ? eq(jobMetadata.mode, q.mode) : undefined, eq(jobMetadata.key, key), eq(jobMetadata.value, value)));
    conditions.push(inArray(jobs.id, matching));
  }
  if (q.before) {
    conditions.push(
      or(lt(jobs.createdAt, q.before.createdAt), and(eq(jobs.createdAt, q.before.createdAt), lt(jobs.id, q.before.id)))!,
    );
  }
  return db
    .select()
    .from(jobs)
    .where(and(...conditions))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(q.limit + 1);
}

async function changed(result: Promise<{ meta: { changes?: number } } | D1Result>): Promise<boolean> {
  return ((await result).meta.changes ?? 0) > 0;
}

/** The last attempt's phases, the processor's and the runner's measurements, stored when a job ends (queuedMs is stored at its first start). */
export interface JobTimings {
  retriesMs?: number | null;
  startMs?: number | null;
  fetchInputMs?: number | null;
  processMs?: number | null;
  storeOutputMs?: number | null;
  reportMs?: number | null;
}

/** Whole milliseconds: the processor's own measurements need not be integers. */
const whole = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : Math.max(0, Math.round(ms)));

function timingColumns(t: JobTimings = {}) {
  return {
    retriesMs: whole(t.retriesMs),
    startMs: whole(t.startMs),
    fetchInputMs: whole(t.fetchInputMs),
    processMs: whole(t.processMs),
    storeOutputMs: whole(t.storeOutputMs),
    reportMs: whole(t.reportMs),
  };
}

// The guarded updates. A duplicate queue delivery, a late alarm or a race with cancel
// changes nothing instead of moving a job backwards: each returns the row it changed, or
// undefined when it did not apply; recordProgress, which needs no row, returns a boolean.

/**
 * queued (or processing, for a retry) → processing with the next attempt number; the row
 * as it is now, or undefined when the job was not at `previousAttempt` any more. The time
 * queued is measured at the first attempt; the sweep asks the runner about the job from
 * `leaseMs` on (src/runner/sweeper.ts).
 */
export async function startAttempt(db: Db, id: string, previousAttempt: number, now: number): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({
      status: "processing",
      attempt: previousAttempt + 1,
      startedAt: sql`coalesce(${jobs.startedAt}, ${now})`,
      queuedMs: sql`coalesce(${jobs.queuedMs}, max(0, ${now} - ${jobs.createdAt}))`,
      // A retry starts its progress again; a fanned-out job's stitch keeps what its parts reached (docs/fanout.md).
      progress: sql`CASE WHEN json_extract(${jobs.part}, '$.role') = 'stitch' THEN ${jobs.progress} ELSE 0 END`,
      leaseExpiresAt: now + TUNABLES.job.leaseMs,
    })
    .where(and(eq(jobs.id, id), eq(jobs.attempt, previousAttempt), inArray(jobs.status, ["queued", "processing"])))
    .returning();
  return rows[0];
}

/** Records progress of a processing attempt; false when the job left it (cancelled, finished). */
export function recordProgress(db: Db, id: string, attempt: number, progress: number): Promise<boolean> {
  return changed(
    db
      .update(jobs)
      .set({ progress: sql`max(coalesce(${jobs.progress}, 0), ${progress})` })
      .where(and(eq(jobs.id, id), eq(jobs.attempt, attempt), eq(jobs.status, "processing")))
      .run(),
  );
}

/**
 * A processing job at `attempt` became playable at `url` (an output name): the row now, or
 * undefined when the job left that attempt or was playable already (the time is its first).
 */
export async function recordPlayable(db: Db, id: string, attempt: number, url: string, now: number): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({ playableAt: now, playableUrl: url })
    .where(and(eq(jobs.id, id), eq(jobs.attempt, attempt), eq(jobs.status, "processing"), isNull(jobs.playableAt)))
    .returning();
  return rows[0];
}

/** processing at `attempt` → completed; the final row, or undefined when the job was not there. */
export async function completeJob(db: Db, id: string, attempt: number, result: unknown, now: number, timings?: JobTimings): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({
      status: "completed",
      result,
      progress: 100,
      completedAt: now,
      leaseExpiresAt: null,
      // A job with a destination completes with its store pending, in the same update, so
      // retention and the webhook sweep never see it completed without it (docs/destinations.md).
      // A workflow's step waits for the workflow to complete (endWorkflow in db/workflows.ts).
      storeStatus: sql`CASE WHEN ${jobs.storeDestinationId} IS NOT NULL AND ${jobs.workflowId} IS NULL THEN 'pending' END`,
      ...timingColumns(timings),
    })
    .where(and(eq(jobs.id, id), eq(jobs.attempt, attempt), eq(jobs.status, "processing")))
    .returning();
  return rows[0];
}

/** Fails a job that is processing at `attempt`, or still queued when `attempt` is null; the final row, or undefined. */
export async function failJob(
  db: Db,
  id: string,
  attempt: number | null,
  error: { code: JobErrorCode; message: string },
  now: number,
  timings?: JobTimings,
): Promise<JobRow | undefined> {
  const guard =
    attempt === null
      ? and(eq(jobs.id, id), eq(jobs.status, "queued"))
      : and(eq(jobs.id, id), eq(jobs.attempt, attempt), eq(jobs.status, "processing"));
  const rows = await db
    .update(jobs)
    .set({ status: "failed", errorCode: error.code, errorMessage: error.message, completedAt: now, leaseExpiresAt: null, ...(timings ? timingColumns(timings) : {}) })
    .where(guard)
    .returning();
  return rows[0];
}

/** queued or processing → cancelled; the final row, or undefined when the job had ended. */
export async function cancelJob(db: Db, id: string, now: number): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({ status: "cancelled", completedAt: now, leaseExpiresAt: null })
    .where(and(eq(jobs.id, id), inArray(jobs.status, ["queued", "processing"])))
    .returning();
  return rows[0];
}

/**
 * Processing jobs whose lease ran out before `before`, oldest lease first, a page of
 * `limit` after the cursor `after` (the last row of the previous page).
 */
export async function expiredLeases(db: Db, before: number, limit: number, after?: { leaseExpiresAt: number; id: string }): Promise<JobRow[]> {
  const cursor = after
    ? or(gt(jobs.leaseExpiresAt, after.leaseExpiresAt), and(eq(jobs.leaseExpiresAt, after.leaseExpiresAt), gt(jobs.id, after.id)))
    : undefined;
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.status, "processing"), lt(jobs.leaseExpiresAt, before), cursor))
    .orderBy(asc(jobs.leaseExpiresAt), asc(jobs.id))
    .limit(limit);
}

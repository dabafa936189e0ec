// Retention (cron): outputs leave R2, then workflow and job rows leave D1, after a period that depends
// on the organization's plan (limits/retention.ts); expired dashboard sessions go too.
// Built for tables of millions of rows (docs/operations.md: retention):
// - each query walks an index that holds only what is due (jobs_outputs_due: completed jobs
//   whose outputs are still there, by completion time; jobs_created for rows), oldest first;
// - work goes in batches of TUNABLES.cleanup.batchSize rows, one statement each (a select,
//   one R2 delete of every key of the batch, one update or delete), at most
//   maxBatchesPerRun batches per run;
// - a batch marks what it did, so the next query starts after it: a run cut short anywhere
//   is resumed by the next one, which repeats at most one batch's R2 deletes (harmless).
import { sql, type SQL } from "drizzle-orm";
import { deleteInBatches, type CleanupLimits } from "../db/cleanup.ts";
import type { Db } from "../db/client.ts";
import { sessions, workflows, type Plan } from "../db/schema.ts";
import { FINAL_STATUSES } from "../contract/job.ts";
import { outputKey, outputsPrefix } from "../files/r2-keys.ts";
import { deletePrefix } from "../files/r2-prefix.ts";
import { outputNames } from "../files/signing.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { DEFAULT_RETENTION, type Retention } from "../limits/retention.ts";

const DAY_MS = 86_400_000;

export function retentionConfig(raw: string | undefined): Record<Plan, Retention> {
  if (!raw) return DEFAULT_RETENTION;
  let overrides: Partial<Record<Plan, Partial<Retention>>>;
  try {
    overrides = JSON.parse(raw);
  } catch {
    log("error", "RETENTION is not valid JSON; using the defaults");
    return DEFAULT_RETENTION;
  }
  const merged = { ...DEFAULT_RETENTION };
  for (const plan of Object.keys(DEFAULT_RETENTION) as Plan[]) merged[plan] = { ...DEFAULT_RETENTION[plan], ...overrides[plan] };
  return merged;
}

export interface RetentionReport {
  outputsDeleted: number;
  jobsDeleted: number;
  workflowsDeleted: number;
  sessionsDeleted: number;
}

/** Each plan's cutoff (older is due) as a SQL expression over the organization's plan, and the latest of them. */
function cutoffs(config: Record<Plan, Retention>, days: keyof Retention, now: number) {
  const at = Object.entries(config).map(([plan, r]) => [plan, now - r[days] * DAY_MS] as const);
  const byPlan = sql.join(at.map(([plan, cutoff]) => sql`WHEN ${plan} THEN ${cutoff}`), sql` `);
  return { latest: Math.max(...at.map(([, cutoff]) => cutoff)), byPlan: sql`(CASE o.plan ${byPlan} ELSE 0 END)` };
}

/**
 * Completed jobs whose outputs are due, oldest first: a range of the partial index
 * jobs_outputs_due. Jobs of plans that keep outputs longer are passed over in that range
 * (at most the jobs completed between the plans' two cutoffs).
 */
export function dueOutputsQuery(config: Record<Plan, Retention>, now: number, limit: number): SQL {
  const { latest, byPlan } = cutoffs(config, "outputsDays", now);
  return sql`
    SELECT j.id, j.result FROM jobs j INDEXED BY jobs_outputs_due JOIN organizations o ON o.id = j.org_id
    WHERE j.status = 'completed' AND j.outputs_deleted_at IS NULL AND j.completed_at < ${latest} AND j.completed_at < ${byPlan}
      -- a store still copying the outputs keeps them (docs/destinations.md)
      AND (j.store_status IS NULL OR j.store_status != 'pending')
    ORDER BY j.completed_at LIMIT ${limit}`;
}

/** Finished jobs whose rows are due, oldest first: a range of jobs_created. */
export function dueJobsQuery(config: Record<Plan, Retention>, now: number, limit: number): SQL {
  const { latest, byPlan } = cutoffs(config, "jobsDays", now);
  const finals = sql.join(FINAL_STATUSES.map((s) => sql`${s}`), sql`, `);
  return sql`
    SELECT j.id, j.status, j.result, j.outputs_deleted_at FROM jobs j INDEXED BY jobs_created JOIN organizations o ON o.id = j.org_id
    WHERE j.created_at < ${latest} AND j.status IN (${finals}) AND j.created_at < ${byPlan}
      AND (j.store_status IS NULL OR j.store_status != 'pending')
    ORDER BY j.created_at LIMIT ${limit}`;
}

/** Ended workflows whose rows are due (by their organization's jobsDays), none of whose steps is still copying: a range of workflows_created. */
export function dueWorkflowsWhere(config: Record<Plan, Retention>, now: number): SQL {
  const { latest, byPlan } = cutoffs(config, "jobsDays", now);
  return sql`${workflows.createdAt} < ${latest} AND ${workflows.endedAt} IS NOT NULL
    AND ${workflows.createdAt} < (SELECT ${byPlan} FROM organizations o WHERE o.id = ${workflows.orgId})
    AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.workflow_id = ${workflows.id} AND j.store_status = 'pending')`;
}

const inList = (ids: string[]) => sql.join(ids.map((id) => sql`${id}`), sql`, `);

export async function applyRetention(db: Db, bucket: R2Bucket, config: Record<Plan, Retention>, now: number, limits: CleanupLimits = TUNABLES.cleanup): Promise<RetentionReport> {
  const { batchSize, maxBatchesPerRun } = limits;
  const report: RetentionReport = { outputsDeleted: 0, jobsDeleted: 0, workflowsDeleted: 0, sessionsDeleted: 0 };
  for (let batch = 0; batch < maxBatchesPerRun; batch++) {
    const due = await db.all<{ id: string; result: string | null }>(dueOutputsQuery(config, now, batchSize));
    if (!due.length) break;
    await deleteKeys(bucket, due.flatMap((job) => storedOutputKeys(job.id, job.result)));
    for (const job of due) if (hasFolders(job.result)) await deleteOutputs(bucket, job.id);
    await db.run(sql`UPDATE jobs SET outputs_deleted_at = ${now} WHERE id IN (${inList(due.map((j) => j.id))}) AND outputs_deleted_at IS NULL`);
    report.outputsDeleted += due.length;
    if (due.length < batchSize) break;
  }

  // A workflow's row goes when its step jobs do (created with it, so due with it): before
  // them, so no workflow is shown with steps missing; its steps then go as jobs, below.
  report.workflowsDeleted = await deleteInBatches(db, workflows, dueWorkflowsWhere(config, now), limits);

  for (let batch = 0; batch < maxBatchesPerRun; batch++) {
    const due = await db.all<{ id: string; status: string; result: string | null; outputs_deleted_at: number | null }>(dueJobsQuery(config, now, batchSize));
    if (!due.length) break;
    const kept = due.filter((job) => job.outputs_deleted_at === null);
    // A completed job's outputs are the names its result gives; a failed or cancelled one
    // may have left some behind (a copy cut short), found by listing its prefix; so are the
    // files of a folder that the result names only one of.
    await deleteKeys(bucket, kept.flatMap((job) => storedOutputKeys(job.id, job.result)));
    for (const job of kept) if (job.status !== "completed" || hasFolders(job.result)) await deleteOutputs(bucket, job.id);
    // Webhook deliveries, their attempts and metadata pairs go with the job (ON DELETE CASCADE).
    await db.run(sql`DELETE FROM jobs WHERE id IN (${inList(due.map((j) => j.id))})`);
    report.jobsDeleted += due.length;
    if (due.length < batchSize) break;
  }

  report.sessionsDeleted = await deleteInBatches(db, sessions, sql`${sessions.expiresAt} < ${now}`, limits);
  if (report.outputsDeleted || report.jobsDeleted || report.workflowsDeleted || report.sessionsDeleted) log("info", "retention", { ...report });
  return report;
}

function storedOutputKeys(jobId: string, result: string | null): string[] {
  if (!result) return [];
  return outputNames(JSON.parse(result)).map((name) => outputKey(jobId, name));
}

/** A result naming a file in a folder (a stream's playlist) has files it does not name: its segments, listed by prefix. */
function hasFolders(result: string | null): boolean {
  return result !== null && outputNames(JSON.parse(result)).some((name) => name.includes("/"));
}

/** R2 takes up to 1000 keys per delete. */
async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

/** Removes every R2 object of a job's outputs. */
export async function deleteOutputs(bucket: R2Bucket, jobId: string): Promise<void> {
  await deletePrefix(bucket, outputsPrefix(jobId));
}

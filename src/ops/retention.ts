// Retention (cron): outputs leave R2, then job rows leave D1, after a period that depends
// on the organization's plan (limits/retention.ts). Work is done in bounded batches so one
// run never outlives its invocation; what is left is picked up by the next run. Expired
// dashboard sessions go too.
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { jobs, organizations, sessions, type Plan } from "../db/schema.ts";
import { FINAL_STATUSES } from "../contract/job.ts";
import { log } from "../lib/log.ts";
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

export const RETENTION_BATCH = 100;

export interface RetentionReport {
  outputsDeleted: number;
  jobsDeleted: number;
}

export async function applyRetention(db: Db, bucket: R2Bucket, config: Record<Plan, Retention>, now: number): Promise<RetentionReport> {
  const report: RetentionReport = { outputsDeleted: 0, jobsDeleted: 0 };
  for (const plan of Object.keys(config) as Plan[]) {
    const { outputsDays, jobsDays } = config[plan];
    const expiredOutputs = await db
      .select({ id: jobs.id })
      .from(jobs)
      .innerJoin(organizations, eq(jobs.orgId, organizations.id))
      .where(and(eq(organizations.plan, plan), eq(jobs.status, "completed"), isNull(jobs.outputsDeletedAt), lt(jobs.completedAt, now - outputsDays * DAY_MS)))
      .limit(RETENTION_BATCH);
    for (const { id } of expiredOutputs) {
      await deleteOutputs(bucket, id);
      await db.update(jobs).set({ outputsDeletedAt: now }).where(eq(jobs.id, id));
      report.outputsDeleted++;
    }

    const expiredJobs = await db
      .select({ id: jobs.id, outputsDeletedAt: jobs.outputsDeletedAt })
      .from(jobs)
      .innerJoin(organizations, eq(jobs.orgId, organizations.id))
      .where(and(eq(organizations.plan, plan), inArray(jobs.status, [...FINAL_STATUSES]), lt(jobs.createdAt, now - jobsDays * DAY_MS)))
      .limit(RETENTION_BATCH);
    for (const job of expiredJobs) if (job.outputsDeletedAt === null) await deleteOutputs(bucket, job.id);
    if (expiredJobs.length) {
      // Webhook deliveries and their attempts go with the job (ON DELETE CASCADE).
      await db.delete(jobs).where(inArray(jobs.id, expiredJobs.map((j) => j.id)));
      report.jobsDeleted += expiredJobs.length;
    }
  }
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
  if (report.outputsDeleted || report.jobsDeleted) log("info", "retention", { ...report });
  return report;
}

/** Removes every R2 object of a job's outputs. */
export async function deleteOutputs(bucket: R2Bucket, jobId: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix: `outputs/${jobId}/`, cursor });
    if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}

// The dashboard's own queries: the state of running jobs, hourly usage, and keys looked up
// and revoked within one organization (every query is scoped to the signed-in member's
// org). Job pages use db/jobs.ts's listJobs, as the API does.
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { JobStatus } from "../../contract/job.ts";
import type { Db } from "../../db/client.ts";
import { listApiKeys } from "../../db/orgs.ts";
import { apiKeys, jobs, type JobRow, type Mode } from "../../db/schema.ts";

export async function findJobOfOrg(db: Db, orgId: string, id: string): Promise<JobRow | undefined> {
  return (await db.select().from(jobs).where(and(eq(jobs.id, id), eq(jobs.orgId, orgId))))[0];
}

/** The state of some of the org's jobs, for live refresh; ids of other orgs are left out. */
export async function jobStates(db: Db, orgId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: jobs.id, status: jobs.status, progress: jobs.progress, startedAt: jobs.startedAt, completedAt: jobs.completedAt })
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), inArray(jobs.id, ids)));
}

/** The webhookUrl of the org's newest job that has one: the test form's default. */
export async function latestWebhookUrl(db: Db, orgId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ url: jobs.webhookUrl })
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), isNotNull(jobs.webhookUrl)))
    .orderBy(desc(jobs.createdAt))
    .limit(1);
  return row?.url ?? undefined;
}

const HOUR_MS = 3600_000;

/**
 * Jobs created in each of the last 24 hours (oldest first, the current hour last) and
 * the jobs processing and queued now, for one mode.
 */
export async function usageSummary(db: Db, orgId: string, mode: Mode, now: number) {
  const currentHour = Math.floor(now / HOUR_MS);
  const since = (currentHour - 23) * HOUR_MS;
  const hourOf = sql<number>`cast(${jobs.createdAt} / ${sql.raw(String(HOUR_MS))} as integer)`;
  const [perHour, byStatus] = await Promise.all([
    db
      .select({ hour: hourOf, jobs: count() })
      .from(jobs)
      .where(and(eq(jobs.orgId, orgId), eq(jobs.mode, mode), gte(jobs.createdAt, since)))
      .groupBy(hourOf),
    db
      .select({ status: jobs.status, jobs: count() })
      .from(jobs)
      .where(and(eq(jobs.orgId, orgId), eq(jobs.mode, mode), inArray(jobs.status, ["processing", "queued"])))
      .groupBy(jobs.status),
  ]);
  const counts = new Map(perHour.map((r) => [Number(r.hour), r.jobs]));
  const hours = Array.from({ length: 24 }, (_, i) => {
    const hour = currentHour - 23 + i;
    return { start: hour * HOUR_MS, jobs: counts.get(hour) ?? 0 };
  });
  const current = (status: JobStatus) => byStatus.find((r) => r.status === status)?.jobs ?? 0;
  return { hours, processing: current("processing"), queued: current("queued"), lastHour: jobsInWindow(hours, now) };
}

/** Jobs in the sliding hour before `now`, approximated from the two newest hourly buckets. */
function jobsInWindow(hours: { start: number; jobs: number }[], now: number): number {
  const current = hours.at(-1)!;
  const previous = hours.at(-2)!;
  const elapsed = (now - current.start) / HOUR_MS;
  return current.jobs + Math.round(previous.jobs * (1 - elapsed));
}

/** Revokes one of the org's keys; false when it is not the org's or already revoked. */
export async function revokeOrgKey(db: Db, orgId: string, keyId: string, now: number): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export async function findOrgKey(db: Db, orgId: string, keyId: string) {
  return (await listApiKeys(db, orgId)).find((k) => k.id === keyId);
}

// The dashboard's own queries: the state of running jobs, jobs created per hour, and keys looked up
// and revoked within one organization (every query is scoped to the signed-in member's
// org). Job pages use db/jobs.ts's listJobs, as the API does.
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { listApiKeys } from "../../db/orgs.ts";
import { apiKeys, jobs, type JobRow, type Mode } from "../../db/schema.ts";

export async function findJobOfOrg(db: Db, orgId: string, id: string): Promise<JobRow | undefined> {
  return (await db.select().from(jobs).where(and(eq(jobs.id, id), eq(jobs.orgId, orgId), isNull(jobs.parentJobId))))[0];
}

/** The state of some of the org's jobs, for live refresh; ids of other orgs are left out. */
export async function jobStates(db: Db, orgId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: jobs.id, status: jobs.status, progress: jobs.progress, startedAt: jobs.startedAt, completedAt: jobs.completedAt, storeStatus: jobs.storeStatus })
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

/** One hour of the usage chart: when it starts, and the jobs created in it. */
export interface HourOfJobs {
  start: number;
  jobs: number;
}

/**
 * Jobs created in each of the last 24 hours (oldest first, the current hour last), for one
 * mode: the history, from D1. What counts against the quota now is the OrgLimiter's (`usage`).
 */
export async function jobsPerHour(db: Db, orgId: string, mode: Mode, now: number): Promise<HourOfJobs[]> {
  const currentHour = Math.floor(now / HOUR_MS);
  const since = (currentHour - 23) * HOUR_MS;
  const hourOf = sql<number>`cast(${jobs.createdAt} / ${sql.raw(String(HOUR_MS))} as integer)`;
  const perHour = await db
    .select({ hour: hourOf, jobs: count() })
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), eq(jobs.mode, mode), gte(jobs.createdAt, since), isNull(jobs.parentJobId)))
    .groupBy(hourOf);
  const counts = new Map(perHour.map((r) => [Number(r.hour), r.jobs]));
  return Array.from({ length: 24 }, (_, i) => {
    const hour = currentHour - 23 + i;
    return { start: hour * HOUR_MS, jobs: counts.get(hour) ?? 0 };
  });
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

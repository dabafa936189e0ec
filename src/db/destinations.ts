// Destinations and the copies of job outputs to them (docs/destinations.md). Every state
// change is a guarded update that says whether it happened.
import { and, asc, desc, eq } from "drizzle-orm";
import type { StoreStatus } from "../contract/enums.ts";
import type { Db } from "./client.ts";
import { destinations, jobs, storeObjects, type DestinationRow, type JobRow, type StoreObjectRow } from "./schema.ts";

export async function insertDestination(db: Db, row: DestinationRow): Promise<void> {
  await db.insert(destinations).values(row);
}

export async function listOrgDestinations(db: Db, orgId: string): Promise<DestinationRow[]> {
  return db.select().from(destinations).where(eq(destinations.orgId, orgId)).orderBy(desc(destinations.createdAt), desc(destinations.id));
}

/** The organization's destination, or undefined (another organization's is never found). */
export async function findOrgDestination(db: Db, orgId: string, id: string): Promise<DestinationRow | undefined> {
  return (await db.select().from(destinations).where(and(eq(destinations.orgId, orgId), eq(destinations.id, id))))[0];
}

export async function deleteOrgDestination(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db.delete(destinations).where(and(eq(destinations.orgId, orgId), eq(destinations.id, id))).returning({ id: destinations.id });
  return rows.length > 0;
}

/** A job's copied outputs, by name. */
export async function storeObjectsOf(db: Db, jobId: string): Promise<StoreObjectRow[]> {
  return db.select().from(storeObjects).where(eq(storeObjects.jobId, jobId)).orderBy(asc(storeObjects.name));
}

/** One pending row per output; outputs already recorded keep their row. */
export async function recordStoreObjects(db: Db, rows: StoreObjectRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(storeObjects).values(rows).onConflictDoNothing();
}

/** pending → stored, with the destination's ETag. */
export async function markObjectStored(db: Db, jobId: string, name: string, etag: string | null, now: number): Promise<boolean> {
  const rows = await db
    .update(storeObjects)
    .set({ status: "stored", etag, error: null, updatedAt: now })
    .where(and(eq(storeObjects.jobId, jobId), eq(storeObjects.name, name), eq(storeObjects.status, "pending")))
    .returning({ name: storeObjects.name });
  return rows.length > 0;
}

/** Records a failed attempt of a pending output; `final` moves it to failed. */
export async function markObjectAttemptFailed(db: Db, jobId: string, name: string, attempts: number, error: string, final: boolean, now: number): Promise<void> {
  await db
    .update(storeObjects)
    .set({ status: final ? "failed" : "pending", error, attempts, updatedAt: now })
    .where(and(eq(storeObjects.jobId, jobId), eq(storeObjects.name, name), eq(storeObjects.status, "pending")));
}

/** Every output still pending of the job fails with `error` (the store gave up). */
export async function failPendingObjects(db: Db, jobId: string, error: string, now: number): Promise<void> {
  await db
    .update(storeObjects)
    .set({ status: "failed", error, updatedAt: now })
    .where(and(eq(storeObjects.jobId, jobId), eq(storeObjects.status, "pending")));
}

/** The job's store pending → stored or failed; the final row when this call ended it. */
export async function endJobStore(db: Db, jobId: string, status: Exclude<StoreStatus, "pending">): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({ storeStatus: status })
    .where(and(eq(jobs.id, jobId), eq(jobs.storeStatus, "pending")))
    .returning();
  return rows[0];
}

/** Any organization's destination: for the store consumer, which has the job's own reference. */
export async function findDestinationById(db: Db, id: string): Promise<DestinationRow | undefined> {
  return (await db.select().from(destinations).where(eq(destinations.id, id)))[0];
}

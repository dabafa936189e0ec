// Delivery rows and their state changes. A delivery is `pending` until an attempt
// succeeds or it is given up; each change is guarded on the state it starts from, so a
// duplicate queue message finds nothing to do instead of sending twice.
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries } from "../db/schema.ts";

export type Delivery = typeof webhookDeliveries.$inferSelect;
export type Attempt = typeof webhookAttempts.$inferSelect;

/** Inserts a delivery; a second `final` delivery for a job is refused by the unique index. Returns whether it was inserted. */
export async function insertDelivery(db: Db, row: typeof webhookDeliveries.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(webhookDeliveries).values(row).onConflictDoNothing().returning({ id: webhookDeliveries.id });
  return inserted.length > 0;
}

export async function findDelivery(db: Db, id: string): Promise<Delivery | undefined> {
  return (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0];
}

export async function deleteDelivery(db: Db, id: string): Promise<void> {
  await db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, id));
}

/**
 * Takes the next attempt number of a pending delivery that has made `seen` attempts.
 * Of two consumers holding copies of one message, only the first gets a number.
 */
export async function claimAttempt(db: Db, id: string, seen: number, now: number): Promise<number | undefined> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ attempts: seen + 1, lastAttemptAt: now, nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, seen)))
    .returning({ attempts: webhookDeliveries.attempts });
  return rows[0]?.attempts;
}

export interface AttemptOutcome {
  /** Where the delivery stands after this attempt. */
  status: Delivery["status"];
  nextAttemptAt: number | null;
}

/** Records one attempt and moves the delivery on, in one batch. */
export async function recordAttempt(db: Db, attempt: Attempt, outcome: AttemptOutcome): Promise<void> {
  const done = outcome.status !== "pending";
  await db.batch([
    db.insert(webhookAttempts).values(attempt).onConflictDoNothing(),
    db
      .update(webhookDeliveries)
      .set({ status: outcome.status, nextAttemptAt: outcome.nextAttemptAt, completedAt: done ? attempt.at : null })
      .where(and(eq(webhookDeliveries.id, attempt.deliveryId), eq(webhookDeliveries.status, "pending"))),
  ]);
}

/** pending → failed: the dead-letter queue's verdict, or attempts exhausted. */
export async function giveUp(db: Db, id: string, now: number): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, completedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending")))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/** A job's deliveries, newest first, each with its attempts, newest first. */
export async function deliveriesOfJob(db: Db, jobId: string): Promise<(Delivery & { log: Attempt[] })[]> {
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.jobId, jobId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id));
  if (deliveries.length === 0) return [];
  const attempts = await db
    .select({ attempt: webhookAttempts })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookAttempts.deliveryId, webhookDeliveries.id))
    .where(eq(webhookDeliveries.jobId, jobId))
    .orderBy(desc(webhookAttempts.attempt));
  return deliveries.map((d) => ({ ...d, log: attempts.map((a) => a.attempt).filter((a) => a.deliveryId === d.id) }));
}

// The parts of a fanned-out job (docs/fanout.md): rows of the jobs table that name their
// parent, run by runners of their own, and are never listed, counted or shown.
import { and, eq, inArray } from "drizzle-orm";
import { partJobId, type FanoutPlan, type FanoutTimings, type JobPart } from "../contract/fanout.ts";
import type { Db } from "./client.ts";
import { jobs, type JobRow } from "./schema.ts";

/**
 * The rows of `parent`'s parts for `plan`: a chunk each, then the audio when there is some.
 * Idempotent (the ids are the parent's and the part's): a runner that plans again after a
 * crash finds the rows it made. `threads`: each chunk's encoder threads (its seat's vCPU).
 */
export async function insertParts(db: Db, parent: JobRow, plan: FanoutPlan, threads: number, now: number): Promise<void> {
  const parts: JobPart[] = [
    ...plan.chunks.map((chunk, index): JobPart => ({
      role: "video",
      index,
      chunk,
      fps: plan.fps,
      video: plan.video,
      threads,
      ...(plan.ladder ? { ladder: { copiedTop: plan.ladder.top !== null, preroll: index === 0 ? 0 : plan.ladder.preroll } } : {}),
    })),
    ...(plan.audio ? [{ role: "audio" } as const] : []),
  ];
  const rows = parts.map((part) => ({
    id: partJobId(parent.id, part.role === "video" ? { role: "video", index: part.index } : { role: "audio" }),
    orgId: parent.orgId,
    mode: parent.mode,
    type: parent.type,
    status: "queued" as const,
    priority: parent.priority,
    params: parent.params,
    createdAt: now,
    parentJobId: parent.id,
    part,
  }));
  // D1 binds at most 100 parameters a statement: a batch of small inserts.
  const inserts = rows.map((row) => db.insert(jobs).values(row).onConflictDoNothing());
  await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
}

/** The parts of `parentId`, in no order (runner/fanout.ts partRows orders them). */
export async function partsOf(db: Db, parentId: string): Promise<JobRow[]> {
  return db.select().from(jobs).where(eq(jobs.parentJobId, parentId));
}

/** Removes the part rows (their runners have let go, or will find nothing to do). */
export async function deletePartRows(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db.delete(jobs).where(inArray(jobs.id, ids));
}

/**
 * The parent's next attempt is the stitch: its row, still processing at `attempt`, takes the
 * part, and its fan-out so far. False when the job left that attempt (cancelled, failed).
 */
export async function beginStitch(db: Db, parentId: string, attempt: number, part: Extract<JobPart, { role: "stitch" }>, fanout: FanoutTimings): Promise<boolean> {
  const rows = await db
    .update(jobs)
    .set({ part, fanout })
    .where(and(eq(jobs.id, parentId), eq(jobs.attempt, attempt), eq(jobs.status, "processing")))
    .returning({ id: jobs.id });
  return rows.length > 0;
}

/** The stitch's own time, once it ran, into the parent's fan-out. */
export async function recordStitch(db: Db, parentId: string, attempt: number, fanout: FanoutTimings): Promise<void> {
  await db.update(jobs).set({ fanout }).where(and(eq(jobs.id, parentId), eq(jobs.attempt, attempt), eq(jobs.status, "processing")));
}

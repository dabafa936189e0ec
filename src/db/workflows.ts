// Workflow and template rows, and a workflow's state changes: each a guarded update that says
// whether it took effect (docs/workflows.md). A workflow's steps are job rows (jobs.workflow_id).
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { jobMetadata, jobs, templates, workflows, type JobRow, type Mode, type TemplateRow, type WorkflowRow } from "./schema.ts";

/** The workflow, its step jobs and their metadata pairs, in one batch: all or nothing. */
export async function insertWorkflow(db: Db, workflow: typeof workflows.$inferInsert, steps: (typeof jobs.$inferInsert)[]): Promise<void> {
  const pairs = steps.flatMap((row) => Object.entries(row.metadata ?? {}).map(([key, value]) => ({ jobId: row.id, orgId: row.orgId, mode: row.mode, key, value })));
  await db.batch([
    db.insert(workflows).values(workflow),
    db.insert(jobs).values(steps),
    ...(pairs.length ? [db.insert(jobMetadata).values(pairs)] : []),
  ]);
}

export async function findWorkflow(db: Db, id: string): Promise<WorkflowRow | undefined> {
  return (await db.select().from(workflows).where(eq(workflows.id, id)))[0];
}

/** The dashboard's read: the organization's, either mode. */
export async function findWorkflowOfOrg(db: Db, orgId: string, id: string): Promise<WorkflowRow | undefined> {
  return (await db.select().from(workflows).where(and(eq(workflows.id, id), eq(workflows.orgId, orgId))))[0];
}

export async function findOrgWorkflow(db: Db, orgId: string, mode: Mode, id: string): Promise<WorkflowRow | undefined> {
  return (await db.select().from(workflows).where(and(eq(workflows.id, id), eq(workflows.orgId, orgId), eq(workflows.mode, mode))))[0];
}

/** The workflow's step jobs, in creation order (the order the steps were given). */
export async function stepJobs(db: Db, workflowId: string): Promise<JobRow[]> {
  return db.select().from(jobs).where(eq(jobs.workflowId, workflowId)).orderBy(asc(jobs.createdAt), asc(jobs.id));
}

/** Newest first, one extra row to tell whether there is more; both modes without one (the dashboard). */
export async function listWorkflows(db: Db, q: { orgId: string; mode?: Mode; limit: number; before?: { createdAt: number; id: string } }): Promise<WorkflowRow[]> {
  const before = q.before ? or(lt(workflows.createdAt, q.before.createdAt), and(eq(workflows.createdAt, q.before.createdAt), lt(workflows.id, q.before.id))) : undefined;
  return db
    .select()
    .from(workflows)
    .where(and(eq(workflows.orgId, q.orgId), q.mode ? eq(workflows.mode, q.mode) : undefined, before))
    .orderBy(desc(workflows.createdAt), desc(workflows.id))
    .limit(q.limit + 1);
}

/**
 * Puts a queued step in line with its input: sets its params (now with url) and released_at,
 * only if it was not released yet. The row when this call released it, else undefined: of
 * two callers (a duplicate finish), one puts the step in line.
 */
export async function releaseStep(db: Db, jobId: string, params: unknown, now: number): Promise<JobRow | undefined> {
  const rows = await db
    .update(jobs)
    .set({ params, releasedAt: now })
    .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued"), isNull(jobs.releasedAt)))
    .returning();
  return rows[0];
}

/** Decides the workflow's outcome (failed, with the step's error, or cancelled) if none was; true if this call decided it. */
export async function decideOutcome(
  db: Db,
  id: string,
  outcome: { status: "cancelled" } | { status: "failed"; step: string; code: string; message: string },
): Promise<boolean> {
  const rows = await db
    .update(workflows)
    .set(outcome.status === "failed" ? { outcome: "failed", errorStep: outcome.step, errorCode: outcome.code, errorMessage: outcome.message } : { outcome: "cancelled" })
    .where(and(eq(workflows.id, id), isNull(workflows.outcome), isNull(workflows.endedAt)))
    .returning({ id: workflows.id });
  return rows.length > 0;
}

/**
 * Ends the workflow once no step of it is queued or processing, and, when it completed (no
 * outcome decided, every step completed), sets the store of each step that has one pending,
 * in the same transaction: nothing sees the workflow completed with its copy not begun. A
 * step that failed before its outcome was decided (its advance still to come) holds the end
 * back, so the workflow never ends completed with a failed step. The workflow row if this
 * call ended it, with the steps whose store it set pending.
 */
export async function endWorkflow(db: Db, id: string, now: number): Promise<{ workflow: WorkflowRow; stores: JobRow[] } | undefined> {
  const noneRunning = sql`NOT EXISTS (SELECT 1 FROM ${jobs} WHERE ${jobs.workflowId} = ${id} AND ${jobs.status} IN ('queued', 'processing'))`;
  const allCompleted = sql`NOT EXISTS (SELECT 1 FROM ${jobs} WHERE ${jobs.workflowId} = ${id} AND ${jobs.status} != 'completed')`;
  const [stores, ended] = await db.batch([
    db
      .update(jobs)
      .set({ storeStatus: "pending" })
      .where(
        and(
          eq(jobs.workflowId, id),
          isNotNull(jobs.storeDestinationId),
          isNull(jobs.storeStatus),
          allCompleted,
          sql`EXISTS (SELECT 1 FROM ${workflows} WHERE ${workflows.id} = ${id} AND ${workflows.endedAt} IS NULL AND ${workflows.outcome} IS NULL)`,
        ),
      )
      .returning(),
    db
      .update(workflows)
      .set({ endedAt: now })
      .where(and(eq(workflows.id, id), isNull(workflows.endedAt), noneRunning, or(isNotNull(workflows.outcome), allCompleted)))
      .returning(),
  ]);
  return ended[0] ? { workflow: ended[0], stores } : undefined;
}

/** Whether a step of the workflow still has its store pending (its webhook waits for none). */
export async function hasPendingStore(db: Db, workflowId: string): Promise<boolean> {
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.workflowId, workflowId), eq(jobs.storeStatus, "pending")))
    .limit(1);
  return rows.length > 0;
}

/** Workflows not ended, created before `before`, oldest first: a page of `limit` after `after` (workflows_open). */
export async function openWorkflows(db: Db, before: number, limit: number, after?: { createdAt: number; id: string }): Promise<WorkflowRow[]> {
  const cursor = after ? or(gt(workflows.createdAt, after.createdAt), and(eq(workflows.createdAt, after.createdAt), gt(workflows.id, after.id))) : undefined;
  return db
    .select()
    .from(workflows)
    .where(and(isNull(workflows.endedAt), lt(workflows.createdAt, before), cursor))
    .orderBy(asc(workflows.createdAt), asc(workflows.id))
    .limit(limit);
}

/** Removes the workflow row and its step job rows (their metadata and deliveries cascade). */
export async function deleteWorkflowRows(db: Db, id: string, jobIds: string[]): Promise<void> {
  await db.batch([db.delete(workflows).where(eq(workflows.id, id)), ...(jobIds.length ? [db.delete(jobs).where(inArray(jobs.id, jobIds))] : [])]);
}

export async function insertTemplate(db: Db, row: typeof templates.$inferInsert): Promise<TemplateRow> {
  return (await db.insert(templates).values(row).returning())[0]!;
}

export async function findOrgTemplate(db: Db, orgId: string, mode: Mode, id: string): Promise<TemplateRow | undefined> {
  return (await db.select().from(templates).where(and(eq(templates.id, id), eq(templates.orgId, orgId), eq(templates.mode, mode))))[0];
}

export async function listTemplates(db: Db, q: { orgId: string; mode: Mode; limit: number; before?: { createdAt: number; id: string } }): Promise<TemplateRow[]> {
  const before = q.before ? or(lt(templates.createdAt, q.before.createdAt), and(eq(templates.createdAt, q.before.createdAt), lt(templates.id, q.before.id))) : undefined;
  return db
    .select()
    .from(templates)
    .where(and(eq(templates.orgId, q.orgId), eq(templates.mode, q.mode), before))
    .orderBy(desc(templates.createdAt), desc(templates.id))
    .limit(q.limit + 1);
}

export async function updateTemplate(db: Db, id: string, set: Partial<Pick<TemplateRow, "name" | "steps">>, now: number): Promise<TemplateRow | undefined> {
  return (await db.update(templates).set({ ...set, updatedAt: now }).where(eq(templates.id, id)).returning())[0];
}

export async function deleteTemplate(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(templates).where(eq(templates.id, id)).returning({ id: templates.id });
  return rows.length > 0;
}

// Schedules webhook deliveries: a delivery row, then one message on the webhooks queue.
// A job's `final` delivery is unique (a partial unique index on job_id), so a duplicate
// finalization inserts nothing and sends nothing. The row is written before the message
// is sent, and removed again if the send fails, so that a retried finalization can
// schedule it afresh and no row is left without a message to carry it.
import { database, type Db } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { findWorkflow, stepJobs } from "../db/workflows.ts";
import type { JobRow, WorkflowRow } from "../db/schema.ts";
import { newId } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { deleteDelivery, insertDelivery, type Delivery } from "./store.ts";

export interface WebhookMessage {
  deliveryId: string;
}

/**
 * The job's one `final` delivery, when it has a webhookUrl; undefined when there is none to
 * schedule. Given the job's final row (finishJob has it), reads nothing.
 */
export async function scheduleFinalDelivery(env: Env, jobOrId: string | JobRow, now = Date.now()): Promise<string | undefined> {
  const job = typeof jobOrId === "string" ? await findJob(database(env.DB), jobOrId) : jobOrId;
  if (!job?.webhookUrl) return undefined;
  const delivery = await schedule(env, job, "final", now);
  return delivery?.id;
}

/**
 * The job's one `job.playable` delivery (unique per job, like `final`), when it has a
 * webhookUrl: its stream plays before the job completes (docs/webhooks.md).
 */
export async function schedulePlayableDelivery(env: Env, job: JobRow, now = Date.now()): Promise<string | undefined> {
  if (!job.webhookUrl) return undefined;
  return (await schedule(env, job, "playable", now))?.id;
}

/**
 * A workflow's one delivery when it ended (`trigger` = `workflow`, unique per workflow), when it
 * has a webhookUrl. Its `jobId` is the workflow's first step's job, whose organization's secret
 * signs it and with whose rows it is deleted.
 */
export async function scheduleWorkflowDelivery(env: Env, workflow: WorkflowRow, firstJobId: string, now = Date.now()): Promise<string | undefined> {
  if (!workflow.webhookUrl) return undefined;
  const row = pendingDelivery({ jobId: firstJobId, workflowId: workflow.id, orgId: workflow.orgId, trigger: "workflow", url: workflow.webhookUrl }, now);
  return (await send(env, database(env.DB), row)) ? row.id : undefined;
}

/** A new `redeliver` delivery of a finished job to its webhookUrl. */
export async function scheduleRedelivery(env: Env, job: JobRow, now = Date.now()): Promise<Delivery> {
  return (await schedule(env, job, "redeliver", now))!;
}

async function schedule(env: Env, job: JobRow, trigger: Delivery["trigger"], now: number): Promise<Delivery | undefined> {
  const row = pendingDelivery({ jobId: job.id, workflowId: null, orgId: job.orgId, trigger, url: job.webhookUrl! }, now);
  return (await send(env, database(env.DB), row)) ? row : undefined;
}

/** A delivery of `target` to be sent now, its first attempt not yet made. */
function pendingDelivery(target: Pick<Delivery, "jobId" | "workflowId" | "orgId" | "trigger" | "url">, now: number): Delivery {
  return { id: newId("msg"), ...target, status: "pending", attempts: 0, createdAt: now, lastAttemptAt: null, nextAttemptAt: now, completedAt: null };
}

/** Inserts the delivery (false when the unique index already has it) and sends its message. */
async function send(env: Env, db: Db, row: Delivery): Promise<boolean> {
  if (!(await insertDelivery(db, row))) return false;
  try {
    await env.WEBHOOKS_QUEUE.send({ deliveryId: row.id } satisfies WebhookMessage, { contentType: "json" });
  } catch (error) {
    await deleteDelivery(db, row.id);
    throw error;
  }
  log("info", "webhook scheduled", { job: row.jobId, ...(row.workflowId ? { workflow: row.workflowId } : {}), delivery: row.id, trigger: row.trigger });
  return true;
}

const { stalledAfterMs, missingLookbackMs, sweepBatchSize } = TUNABLES.webhooks;

/** Workflows ended between ?1 and ?2 with a webhookUrl, no delivery and no step still copying; at most ?3 (workflows_webhook_ended). */
export const MISSING_WORKFLOW_DELIVERIES = `SELECT w.id FROM workflows w INDEXED BY workflows_webhook_ended
  LEFT JOIN webhook_deliveries d ON d.workflow_id = w.id AND d."trigger" = 'workflow'
  WHERE w.webhook_url IS NOT NULL AND w.ended_at IS NOT NULL AND w.ended_at BETWEEN ? AND ? AND d.id IS NULL
    AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.workflow_id = w.id AND j.store_status = 'pending') LIMIT ?`;

/**
 * The cron's safety net for a Worker that stopped half-way: a finished job (or an ended
 * workflow) with a webhookUrl but no final delivery gets one, and a delivery whose message never arrived
 * (no attempt after stalledAfterMs, 10 minutes) is sent again. The consumer claims attempts, so a message
 * that was only late is not delivered twice. Each query walks a partial index of the rows
 * it may act on (migrations/0004_retention_indexes.sql), never the whole table.
 */
export async function sweepDeliveries(env: Env, now: number): Promise<void> {
  const missing = await env.DB.prepare(
    `SELECT j.id FROM jobs j INDEXED BY jobs_webhook_finished LEFT JOIN webhook_deliveries d ON d.job_id = j.id AND d."trigger" = 'final'
     WHERE j.webhook_url IS NOT NULL AND j.status IN ('completed', 'failed', 'cancelled')
       AND j.completed_at BETWEEN ? AND ? AND d.id IS NULL
       -- a job whose store is still copying gets its final delivery when the store ends (src/destinations/store.ts)
       AND (j.store_status IS NULL OR j.store_status != 'pending') LIMIT ?`,
  )
    .bind(now - missingLookbackMs, now - stalledAfterMs, sweepBatchSize)
    .all<{ id: string }>();
  for (const { id } of missing.results) await scheduleFinalDelivery(env, id, now);

  // The same for a workflow: ended with a webhookUrl but no delivery (its end's scheduling, or
  // its last store's, crashed), once no step's copy is still running.
  const missingWorkflows = await env.DB.prepare(MISSING_WORKFLOW_DELIVERIES)
    .bind(now - missingLookbackMs, now - stalledAfterMs, sweepBatchSize)
    .all<{ id: string }>();
  const db = database(env.DB);
  for (const { id } of missingWorkflows.results) {
    const workflow = await findWorkflow(db, id);
    const first = workflow && (await stepJobs(db, id))[0];
    if (!workflow || !first) continue;
    log("warn", "workflow ended without its webhook; scheduling it", { workflow: id });
    await scheduleWorkflowDelivery(env, workflow, first.id, now);
  }

  const stalled = await env.DB.prepare(
    `SELECT id FROM webhook_deliveries INDEXED BY webhook_deliveries_unsent WHERE status = 'pending' AND attempts = 0 AND created_at < ? LIMIT ?`,
  )
    .bind(now - stalledAfterMs, sweepBatchSize)
    .all<{ id: string }>();
  for (const { id } of stalled.results) {
    log("warn", "webhook delivery had no attempt; sending it again", { delivery: id });
    await env.WEBHOOKS_QUEUE.send({ deliveryId: id } satisfies WebhookMessage, { contentType: "json" });
  }
}

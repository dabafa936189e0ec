// A job's store: when a job with `store` completes (its row says store_status pending),
// finishJob sends one message on the store queue; the consumer copies every output not yet
// stored to the destination, recording each in store_objects, and retries on the backoff
// schedule. When every output is stored, or the last attempt failed, the job's store ends
// and its final webhook is scheduled then, so it says where the files are. A workflow's step
// starts its store when the workflow completed, and the workflow's webhook waits for them all.
import { database } from "../db/client.ts";
import { endJobStore, failPendingObjects, findDestinationById, markObjectAttemptFailed, markObjectStored, recordStoreObjects, storeObjectsOf } from "../db/destinations.ts";
import { findJob } from "../db/jobs.ts";
import type { JobRow, StoreObjectRow } from "../db/schema.ts";
import { outputKey, outputsPrefix } from "../files/r2-keys.ts";
import { log } from "../lib/log.ts";
import { tunablesFor, type Tunables } from "../lib/tunables.ts";
import { findWorkflow, hasPendingStore, stepJobs } from "../db/workflows.ts";
import { scheduleFinalDelivery, scheduleWorkflowDelivery } from "../webhooks/schedule.ts";
import { openBucket } from "./bucket.ts";
import { copyObject } from "./copy.ts";

export interface StoreMessage {
  jobId: string;
}

/** Sends the store message of a job that completed with its store pending. */
export async function startStore(env: Env, job: JobRow): Promise<void> {
  await env.STORE_QUEUE.send({ jobId: job.id } satisfies StoreMessage, { contentType: "json" });
  log("info", "store scheduled", { job: job.id, destination: job.storeDestinationId });
}

export type StoreAttempt = { done: true } | { done: false; error: string; permanent: boolean };

/**
 * One attempt at a job's store: lists its outputs in R2, records one row each (pending),
 * copies those not yet stored. Outputs already stored are not sent again.
 */
export async function storeJobOutputs(env: Env, job: JobRow, attempt: number, tunables: Tunables = tunablesFor(env)): Promise<StoreAttempt> {
  const db = database(env.DB);
  const now = Date.now();
  const destination = job.storeDestinationId ? await findDestinationById(db, job.storeDestinationId) : undefined;
  if (!destination) return { done: false, error: "the destination was deleted", permanent: true };

  const listed: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.OUTPUTS.list({ prefix: outputsPrefix(job.id), cursor });
    listed.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  const prefix = job.storePrefix ?? "";
  await recordStoreObjects(
    db,
    listed.map((o): StoreObjectRow => {
      const name = o.key.slice(outputsPrefix(job.id).length);
      return { jobId: job.id, name, key: `${prefix}${name}`, status: "pending", size: o.size, etag: null, error: null, attempts: 0, updatedAt: now };
    }),
  );

  let bucket;
  try {
    bucket = await openBucket(env, destination, tunables.store.callTimeoutMs);
  } catch (error) {
    return { done: false, error: (error as Error).message, permanent: true };
  }
  const errors: string[] = [];
  for (const row of await storeObjectsOf(db, job.id)) {
    if (row.status !== "pending") continue;
    try {
      const copied = await copyObject(env.OUTPUTS, outputKey(job.id, row.name), bucket, row.key, tunables.store);
      await markObjectStored(db, job.id, row.name, copied.etag, Date.now());
      log("info", "output stored", { job: job.id, output: row.name, bytes: copied.size, parts: copied.parts });
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      errors.push(`${row.name}: ${message}`);
      await markObjectAttemptFailed(db, job.id, row.name, attempt, message, false, Date.now());
    }
  }
  return errors.length === 0 ? { done: true } : { done: false, error: errors.join("; "), permanent: false };
}

/** Ends a job's store (once: the update is guarded) and schedules its final webhook. */
export async function endStore(env: Env, jobId: string, outcome: { stored: true } | { stored: false; error: string }): Promise<void> {
  const db = database(env.DB);
  const now = Date.now();
  if (!outcome.stored) await failPendingObjects(db, jobId, outcome.error, now);
  const job = await endJobStore(db, jobId, outcome.stored ? "stored" : "failed");
  if (!job) return;
  log(outcome.stored ? "info" : "warn", outcome.stored ? "store ended" : "store failed", {
    job: jobId,
    ...(job.workflowId ? { workflow: job.workflowId } : {}),
    ...(outcome.stored ? {} : { error: outcome.error }),
  });
  if (job.workflowId) await reportWorkflowStored(env, job.workflowId, now);
  else await scheduleFinalDelivery(env, job, now);
}

/**
 * A workflow's webhook waits for every step's copy: scheduled by whichever step's store ended
 * last (read after its own end: of two ending together, one at least sees none pending; the
 * delivery is unique per workflow, so both scheduling it sends one).
 */
async function reportWorkflowStored(env: Env, workflowId: string, now: number): Promise<void> {
  const db = database(env.DB);
  if (await hasPendingStore(db, workflowId)) return;
  const workflow = await findWorkflow(db, workflowId);
  const first = workflow && (await stepJobs(db, workflowId))[0];
  if (workflow && first) await scheduleWorkflowDelivery(env, workflow, first.id, now);
}

export interface StoreConsumeOptions {
  tunables?: Tunables;
}

export async function consumeStore(batch: MessageBatch<StoreMessage>, env: Env, options: StoreConsumeOptions = {}): Promise<void> {
  const tunables = options.tunables ?? tunablesFor(env);
  for (const message of batch.messages) {
    const job = await findJob(database(env.DB), message.body.jobId);
    if (!job || job.storeStatus !== "pending") {
      message.ack();
      continue;
    }
    let result: StoreAttempt;
    try {
      result = await storeJobOutputs(env, job, message.attempts, tunables);
    } catch (error) {
      result = { done: false, error: `internal: ${String(error)}`, permanent: false };
    }
    if (result.done) {
      await endStore(env, job.id, { stored: true });
      message.ack();
    } else if (result.permanent || message.attempts >= tunables.store.maxAttempts) {
      await endStore(env, job.id, { stored: false, error: result.error });
      message.ack();
    } else {
      const delaySeconds = tunables.store.retryDelaysS[Math.min(message.attempts, tunables.store.retryDelaysS.length) - 1] ?? 60;
      log("warn", "store attempt failed; will retry", { job: job.id, attempt: message.attempts, retryInSeconds: delaySeconds, error: result.error });
      message.retry({ delaySeconds });
    }
  }
}

/** Messages that used up their retries: the job's store fails. */
export async function consumeDeadStore(batch: MessageBatch<StoreMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    await endStore(env, message.body.jobId, { stored: false, error: "the copy was given up after its retries" });
    message.ack();
  }
}

/**
 * The cron's safety net for a store message lost (a send that failed after the job
 * completed, or after a workflow's end, a crash): a pending store with no attempt recorded
 * for longer than the longest retry delay, since it began, gets a new message. A message only late makes two attempts at once at worst;
 * both copy the same bytes to the same keys and the row updates are guarded.
 */
export async function sweepStores(env: Env, now: number, tunables: Tunables = tunablesFor(env)): Promise<number> {
  const { stalledAfterMs, sweepBatchSize } = tunables.store;
  const stalled = await env.DB.prepare(
    `SELECT j.id FROM jobs j INDEXED BY jobs_store_pending
     WHERE j.store_status = 'pending' AND j.completed_at < ?
       AND NOT EXISTS (SELECT 1 FROM store_objects s WHERE s.job_id = j.id AND s.updated_at >= ?)
       -- a workflow's step began its store when the workflow ended, not when the step completed
       AND (j.workflow_id IS NULL OR EXISTS (SELECT 1 FROM workflows w WHERE w.id = j.workflow_id AND w.ended_at < ?))
     LIMIT ?`,
  )
    .bind(now - stalledAfterMs, now - stalledAfterMs, now - stalledAfterMs, sweepBatchSize)
    .all<{ id: string }>();
  for (const { id } of stalled.results) {
    log("warn", "store had no attempt for a while; sending it again", { job: id });
    await env.STORE_QUEUE.send({ jobId: id } satisfies StoreMessage, { contentType: "json" });
  }
  return stalled.results.length;
}

// Schedules webhook deliveries: a delivery row, then one message on the webhooks queue.
// A job's `final` delivery is unique (a partial unique index on job_id), so a duplicate
// finalization inserts nothing and sends nothing. The row is written before the message
// is sent, and removed again if the send fails, so that a retried finalization can
// schedule it afresh and no row is left without a message to carry it.
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { newId } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import { deleteDelivery, insertDelivery, type Delivery } from "./store.ts";

export interface WebhookMessage {
  deliveryId: string;
}

/** The job's one `final` delivery, when it has a webhookUrl; undefined when there is none to schedule. */
export async function scheduleFinalDelivery(env: Env, jobId: string, now = Date.now()): Promise<string | undefined> {
  const job = await findJob(database(env.DB), jobId);
  if (!job?.webhookUrl) return undefined;
  const delivery = await schedule(env, job, "final", now);
  return delivery?.id;
}

/** A new `redeliver` delivery of a finished job to its webhookUrl. */
export async function scheduleRedelivery(env: Env, job: JobRow, now = Date.now()): Promise<Delivery> {
  return (await schedule(env, job, "redeliver", now))!;
}

async function schedule(env: Env, job: JobRow, trigger: Delivery["trigger"], now: number): Promise<Delivery | undefined> {
  const db = database(env.DB);
  const row: Delivery = {
    id: newId("msg"),
    jobId: job.id,
    orgId: job.orgId,
    trigger,
    url: job.webhookUrl!,
    status: "pending",
    attempts: 0,
    createdAt: now,
    lastAttemptAt: null,
    nextAttemptAt: now,
    completedAt: null,
  };
  if (!(await insertDelivery(db, row))) return undefined;
  try {
    await env.WEBHOOKS_QUEUE.send({ deliveryId: row.id } satisfies WebhookMessage, { contentType: "json" });
  } catch (error) {
    await deleteDelivery(db, row.id);
    throw error;
  }
  log("info", "webhook scheduled", { job: job.id, delivery: row.id, trigger });
  return row;
}

// The webhooks queue and its dead-letter queue. Each message carries a delivery id; the
// body is built and signed at attempt time, so result links are valid for an hour from
// the attempt and a rotated secret takes effect on the next try. Idempotent: a delivery
// that is no longer pending is not sent again, and of two copies of a message only the
// one that claims the attempt number sends.
import { eq } from "drizzle-orm";
import { toSdkJob } from "../contract/dialects.ts";
import { database, type Db } from "../db/client.ts";
import { jobs, organizations, type JobRow } from "../db/schema.ts";
import { findWorkflow, stepJobs } from "../db/workflows.ts";
import { toHttpJob, type ViewOptions } from "../jobs/view.ts";
import { toHttpWorkflow } from "../jobs/workflow-view.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { retryDelaySeconds } from "./backoff.ts";
import { deliver, type AttemptResult } from "./deliver.ts";
import type { WebhookMessage } from "./schedule.ts";
import { signingSecrets } from "./secrets.ts";
import { signDelivery } from "./sign.ts";
import { claimAttempt, findDelivery, giveUp, recordAttempt, type Delivery } from "./store.ts";

export interface ConsumeOptions {
  /** The per-attempt time limit; 15 s unless a test shortens it. */
  timeoutMs?: number;
  /** [0, 1) for the jitter of the next delay. */
  random?: () => number;
}

export async function consumeWebhooks(batch: MessageBatch<WebhookMessage>, env: Env, options: ConsumeOptions = {}): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await attempt(env, message, options);
      } catch (error) {
        // Not the receiver's fault (D1, a bug): try again soon; the attempt number stays claimed.
        log("error", "webhook attempt crashed; will retry", { delivery: message.body.deliveryId, error: String(error) });
        message.retry({ delaySeconds: retryDelaySeconds(1, Math.random()) });
      }
    }),
  );
}

/** Messages that used up their retries: their deliveries are given up. */
export async function consumeDeadWebhooks(batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> {
  const db = database(env.DB);
  for (const message of batch.messages) {
    if (await giveUp(db, message.body.deliveryId, Date.now())) {
      log("warn", "webhook dead-lettered", { delivery: message.body.deliveryId });
    }
    message.ack();
  }
}

async function attempt(env: Env, message: Message<WebhookMessage>, options: ConsumeOptions): Promise<void> {
  const db = database(env.DB);
  const delivery = await findDelivery(db, message.body.deliveryId);
  if (!delivery || delivery.status !== "pending") return message.ack();
  const now = Date.now();
  if (delivery.attempts >= TUNABLES.webhooks.maxAttempts) {
    // The queue kept the message longer than our schedule: stop here.
    await giveUp(db, delivery.id, now);
    return message.ack();
  }
  const context = await jobAndOrg(db, delivery.jobId);
  if (!context) return message.ack();
  const number = await claimAttempt(db, delivery.id, delivery.attempts, now);
  if (number === undefined) return message.ack();

  const view = { secret: env.FILES_SIGNING_SECRET, origin: env.PUBLIC_BASE_URL.replace(/\/+$/, ""), now, db };
  const body = delivery.workflowId ? await workflowBody(db, delivery.workflowId, view) : await jobBody(context.job, delivery.trigger, view);
  if (body === undefined) return message.ack();
  const signed = await signDelivery(body, delivery.id, signingSecrets(context.job, context.org, now), now);
  const result = await deliver(delivery.url, body, signed, {
    allowPrivate: env.ALLOW_PRIVATE_NETWORK_INPUTS === "true",
    timeoutMs: options.timeoutMs,
  });

  const delay = result.kind === "failed" ? retryDelaySeconds(number, (options.random ?? Math.random)()) : undefined;
  await recordAttempt(
    db,
    {
      deliveryId: delivery.id,
      attempt: number,
      at: now,
      statusCode: result.statusCode,
      error: "error" in result ? result.error : null,
      latencyMs: result.latencyMs,
    },
    {
      status: outcomeStatus(result),
      nextAttemptAt: delay === undefined ? null : now + result.latencyMs + delay * 1000,
    },
  );
  log(result.kind === "delivered" ? "info" : "warn", `webhook ${result.kind}`, {
    job: delivery.jobId,
    delivery: delivery.id,
    attempt: number,
    host: URL.parse(delivery.url)?.host ?? null,
    statusCode: result.statusCode,
    ...(delay === undefined ? {} : { retryInSeconds: delay }),
  });

  if (result.kind !== "failed") return message.ack();
  // After the last attempt the queue has no retries left and moves the message to the
  // dead-letter queue (wrangler.toml: max_retries = TUNABLES.webhooks.maxAttempts - 1), whose consumer gives up.
  message.retry(delay === undefined ? {} : { delaySeconds: delay });
}

function outcomeStatus(result: AttemptResult) {
  if (result.kind === "delivered") return "succeeded" as const;
  if (result.kind === "rejected") return "failed" as const;
  return "pending" as const;
}

/**
 * A job delivery's body: the job in the client-library dialect; for `playable`, wrapped as
 * `{type: "job.playable", data: <that job>}`, so a receiver tells it from the job's end
 * (docs/webhooks.md). The job is read at the attempt, as every delivery's is.
 */
async function jobBody(job: JobRow, trigger: Delivery["trigger"], view: ViewOptions): Promise<string> {
  const data = toSdkJob(await toHttpJob(job, view));
  return JSON.stringify(trigger === "playable" ? { type: "job.playable", data } : data);
}

/** A workflow delivery's body: `{type: "workflow.<status>", data: <the workflow as GET /v1/workflows/:id shows it>}` (docs/webhooks.md). */
async function workflowBody(db: Db, workflowId: string, view: ViewOptions): Promise<string | undefined> {
  const workflow = await findWorkflow(db, workflowId);
  if (!workflow) return undefined;
  const data = await toHttpWorkflow(workflow, await stepJobs(db, workflowId), view);
  return JSON.stringify({ type: `workflow.${data.status}`, data });
}

async function jobAndOrg(db: Db, jobId: string) {
  const rows = await db.select({ job: jobs, org: organizations }).from(jobs).innerJoin(organizations, eq(jobs.orgId, organizations.id)).where(eq(jobs.id, jobId));
  return rows[0];
}

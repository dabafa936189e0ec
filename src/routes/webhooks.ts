// /v1/jobs/:id/webhooks: a job's webhook deliveries with every attempt, and redelivery.
// Scoped like the job itself: another organization's or mode's job is a 404.
import { Hono } from "hono";
import { database } from "../db/client.ts";
import { findOrgJob } from "../db/jobs.ts";
import { iso } from "../lib/crypto.ts";
import { invalidInput, notFound } from "../lib/errors.ts";
import { scheduleRedelivery } from "../webhooks/schedule.ts";
import { deliveriesOfJob, type Attempt, type Delivery } from "../webhooks/store.ts";

const FINISHED = ["completed", "failed", "cancelled"];

export const webhooksRoutes = new Hono<{ Bindings: Env }>()
  .get("/:id/webhooks", async (c) => {
    const db = database(c.env.DB);
    const job = await findOrgJob(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!job) throw notFound("job");
    const deliveries = await deliveriesOfJob(db, job.id);
    return c.json({ data: deliveries.map((d) => deliveryView(d, d.log)) });
  })
  .post("/:id/webhooks/redeliver", async (c) => {
    const job = await findOrgJob(database(c.env.DB), c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!job) throw notFound("job");
    if (!job.webhookUrl) {
      throw invalidInput("the job has no webhookUrl to deliver to", [{ path: "webhookUrl", message: "not set when the job was created" }]);
    }
    if (!FINISHED.includes(job.status)) {
      throw invalidInput(`the job is ${job.status}; only a finished job's webhook can be redelivered`, [{ path: "status", message: `is ${job.status}` }]);
    }
    const delivery = await scheduleRedelivery(c.env, job);
    return c.json(deliveryView(delivery, []), 202);
  });

function deliveryView(d: Delivery, attempts: Attempt[]) {
  return {
    id: d.id,
    jobId: d.jobId,
    trigger: d.trigger,
    url: d.url,
    status: d.status,
    attemptCount: d.attempts,
    createdAt: iso(d.createdAt)!,
    lastAttemptAt: iso(d.lastAttemptAt) ?? null,
    nextAttemptAt: d.status === "pending" ? (iso(d.nextAttemptAt) ?? null) : null,
    completedAt: iso(d.completedAt) ?? null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at)!,
      statusCode: a.statusCode,
      error: a.error,
      latencyMs: a.latencyMs,
    })),
  };
}

// The `jobs` queue: one message per created job. The consumer puts each queued job in
// line at its organization's limiter, which starts it when a slot is free; the limiter and
// the runner both ignore jobs they already know, so duplicate deliveries are harmless.
// Messages that keep failing land in the dead-letter queue, whose consumer fails the
// job so that nothing stays queued forever.
import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { organizations } from "../db/schema.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { finishJob } from "./finish.ts";

export interface JobMessage {
  jobId: string;
}

export async function enqueueJob(env: Env, jobId: string): Promise<void> {
  await env.JOBS_QUEUE.send({ jobId } satisfies JobMessage, { contentType: "json" });
}

export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  const db = database(env.DB);
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const job = await findJob(db, message.body.jobId);
        if (job?.status === "queued") {
          const org = (await db.select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, job.orgId)))[0];
          await limiterFor(env, job.orgId, job.mode).enqueue({ jobId: job.id, priority: job.priority, createdAt: job.createdAt }, org?.plan ?? "free");
        }
        message.ack();
      } catch (error) {
        log("warn", "could not start job; will retry", { job: message.body.jobId, attempt: message.attempts, error: String(error) });
        message.retry({ delaySeconds: Math.min(TUNABLES.jobsQueue.maxRetryDelayS, 2 ** message.attempts) });
      }
    }),
  );
}

export async function consumeDeadJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    await finishJob(env, message.body.jobId, {
      status: "failed",
      attempt: null,
      error: { code: "processing_interrupted", message: "the job could not be started after repeated attempts; create it again" },
    });
    message.ack();
  }
}

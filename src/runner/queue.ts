// The `jobs` queue: one message per created job. The consumer puts each queued job in
// line at its organization's limiter, which starts it when a slot is free; the limiter and
// the runner both ignore jobs they already know, so duplicate deliveries are harmless.
// The message carries what the limiter needs, so the consumer reads nothing from D1: a
// job that ended meanwhile is one the limiter remembers as done, or one its runner refuses
// to start (it reads the job's row before starting it). The plan is not in it: the
// limiter has it from the job's admission or a later change, and a late message must not
// bring an old one back.
// Messages that keep failing land in the dead-letter queue, whose consumer fails the
// job so that nothing stays queued forever.
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { finishJob } from "./finish.ts";

/** A created job, as the limiter takes it. Messages sent before these fields existed carry only `jobId`. */
export interface JobMessage {
  jobId: string;
  orgId?: string;
  mode?: string;
  priority?: number;
  createdAt?: number;
}

export type QueuedJob = Required<JobMessage>;

export async function enqueueJob(env: Env, job: QueuedJob): Promise<void> {
  await env.JOBS_QUEUE.send(job satisfies JobMessage, { contentType: "json" });
}

/** The job as the limiter takes it: from the message, or from D1 for an older message (undefined when no longer queued). */
async function queuedJob(env: Env, message: JobMessage): Promise<QueuedJob | undefined> {
  const { orgId, mode, priority, createdAt } = message;
  if (orgId !== undefined && mode !== undefined && priority !== undefined && createdAt !== undefined) {
    return { jobId: message.jobId, orgId, mode, priority, createdAt };
  }
  const db = database(env.DB);
  const job = await findJob(db, message.jobId);
  if (job?.status !== "queued") return undefined;
  return { jobId: job.id, orgId: job.orgId, mode: job.mode, priority: job.priority, createdAt: job.createdAt };
}

export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const job = await queuedJob(env, message.body);
        if (job) await limiterFor(env, job.orgId, job.mode).enqueue({ jobId: job.jobId, priority: job.priority, createdAt: job.createdAt });
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

// The `jobs` queue: one message per created job, put in line at its organization's limiter
// (src/limits/org-limiter.ts); its dead-letter queue fails a job that never started.
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { attemptEnded } from "./attempt-end.ts";
import { finishJob } from "./finish.ts";

/**
 * A created job, as the limiter takes it: the consumer reads nothing from D1. The plan is
 * not in it: the limiter has it from the job's admission or a later change, and a late
 * message must not bring an old one back.
 */
export interface JobMessage {
  jobId: string;
  orgId: string;
  mode: string;
  priority: number;
  createdAt: number;
}

/** A message as it may arrive: one sent before the other fields existed carries only `jobId`. */
export type ReceivedJobMessage = Pick<JobMessage, "jobId"> & Partial<JobMessage>;

export async function enqueueJob(env: Env, message: JobMessage): Promise<void> {
  await env.JOBS_QUEUE.send(message, { contentType: "json" });
}

/** The whole message: as sent, or from D1 for an older message (undefined when the job is no longer queued). */
async function completeMessage(env: Env, message: ReceivedJobMessage): Promise<JobMessage | undefined> {
  const { jobId, orgId, mode, priority, createdAt } = message;
  if (orgId !== undefined && mode !== undefined && priority !== undefined && createdAt !== undefined) return { jobId, orgId, mode, priority, createdAt };
  const job = await findJob(database(env.DB), jobId);
  if (job?.status !== "queued") return undefined;
  return { jobId: job.id, orgId: job.orgId, mode: job.mode, priority: job.priority, createdAt: job.createdAt };
}

/**
 * Puts each job in line at its limiter. Duplicate deliveries are harmless: the limiter and
 * the runner ignore jobs they already know, and a job that ended meanwhile is one the
 * limiter remembers as done or one whose attempt the runner's guarded update refuses to begin.
 */
export async function consumeJobs(batch: MessageBatch<ReceivedJobMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const job = await completeMessage(env, message.body);
        if (job) await limiterFor(env, job.orgId, job.mode).enqueue({ jobId: job.jobId, priority: job.priority, createdAt: job.createdAt });
        message.ack();
      } catch (error) {
        log("warn", "could not start job; will retry", { job: message.body.jobId, attempt: message.attempts, error: String(error) });
        message.retry({ delaySeconds: Math.min(TUNABLES.jobsQueue.maxRetryDelayS, 2 ** message.attempts) });
      }
    }),
  );
}

/** Fails each job whose message kept failing (TUNABLES.jobsQueue.maxRetries), so that nothing stays queued forever. */
export async function consumeDeadJobs(batch: MessageBatch<ReceivedJobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const { fail } = attemptEnded({ cause: "dead-lettered" }, null, TUNABLES.job);
    await finishJob(env, message.body.jobId, { status: "failed", attempt: null, error: fail });
    message.ack();
  }
}

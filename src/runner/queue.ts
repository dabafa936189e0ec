// The `jobs` queue: one message per created job. The consumer hands each job to its
// runner, which ignores jobs that are not queued, so duplicate deliveries are harmless.
// Messages that keep failing land in the dead-letter queue, whose consumer fails the
// job so that nothing stays queued forever.
import { database } from "../db/client.ts";
import { failJob } from "../db/jobs.ts";
import { log } from "../lib/log.ts";
import { jobFinished } from "./finished.ts";

export interface JobMessage {
  jobId: string;
}

export async function enqueueJob(env: Env, jobId: string): Promise<void> {
  await env.JOBS_QUEUE.send({ jobId } satisfies JobMessage, { contentType: "json" });
}

export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await env.JOB_RUNNER.getByName(message.body.jobId).start(message.body.jobId);
        message.ack();
      } catch (error) {
        log("warn", "could not start job; will retry", { job: message.body.jobId, attempt: message.attempts, error: String(error) });
        message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
      }
    }),
  );
}

export async function consumeDeadJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  const db = database(env.DB);
  for (const message of batch.messages) {
    const failed = await failJob(
      db,
      message.body.jobId,
      null,
      { code: "processing_interrupted", message: "the job could not be started after repeated attempts; create it again" },
      Date.now(),
    );
    if (failed) await jobFinished(env, message.body.jobId);
    message.ack();
  }
}

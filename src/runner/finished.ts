// What happens once a job reaches a final state, whoever put it there (runner, cancel,
// sweeper). Called only by the caller whose guarded update took effect, so it runs once
// per job; each step is itself idempotent, so a retry after a crash is harmless.
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { scheduleFinalDelivery } from "../webhooks/schedule.ts";

export async function jobFinished(env: Env, jobId: string): Promise<void> {
  const job = await findJob(database(env.DB), jobId);
  if (!job) return;
  log("info", "job finished", { job: jobId, status: job.status });
  // Frees the job's concurrency slot and starts the next waiting job at once.
  await limiterFor(env, job.orgId, job.mode).release(jobId);
  // Schedules the one `final` webhook delivery when the job has a webhookUrl.
  await scheduleFinalDelivery(env, jobId);
}

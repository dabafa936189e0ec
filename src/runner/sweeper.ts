// The cron sweep: jobs whose runner stopped renewing its lease are poked (their runner
// polls again and carries on); one still stuck after a second lease is failed with
// processing_interrupted, so no job stays processing forever.
import { database } from "../db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../db/idempotency.ts";
import { expiredLeases, failJob, LEASE_MS } from "../db/jobs.ts";
import { log } from "../lib/log.ts";
import { jobFinished } from "./finished.ts";

const BATCH = 100;

export async function sweep(env: Env, now: number): Promise<void> {
  const db = database(env.DB);
  for (const job of await expiredLeases(db, now, BATCH)) {
    const stuckFor = now - (job.leaseExpiresAt ?? now);
    if (stuckFor < LEASE_MS) {
      await env.JOB_RUNNER.getByName(job.id).poke();
      continue;
    }
    const failed = await failJob(
      db,
      job.id,
      job.attempt,
      { code: "processing_interrupted", message: "processing stopped responding and the job was not completed; create it again" },
      now,
    );
    if (failed) {
      log("warn", "swept a stuck job", { job: job.id, attempt: job.attempt });
      await env.JOB_RUNNER.getByName(job.id).cancel();
      await jobFinished(env, job.id);
    }
  }
  await deleteExpiredIdempotencyKeys(env.DB, now);
}

// The cron sweep: jobs whose runner stopped renewing its lease are poked (their runner
// polls again and carries on); one still stuck after the poke window is failed with
// processing_interrupted, so no job stays processing forever.
import { database } from "../db/client.ts";
import { expiredLeases } from "../db/jobs.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { deleteExpiredIdempotencyKeys } from "../routes/idempotency.ts";
import { finishJob } from "./finish.ts";

const { pokeWindowMs, batchSize } = TUNABLES.sweep;

export async function sweep(env: Env, now: number): Promise<void> {
  for (const job of await expiredLeases(database(env.DB), now, batchSize)) {
    const stuckForMs = now - (job.leaseExpiresAt ?? now);
    if (stuckForMs < pokeWindowMs) {
      await env.JOB_RUNNER.getByName(job.id).poke();
      continue;
    }
    const failed = await finishJob(
      env,
      job.id,
      {
        status: "failed",
        attempt: job.attempt,
        error: { code: "processing_interrupted", message: "processing stopped responding and the job was not completed; create it again" },
      },
      { now },
    );
    if (failed) log("warn", "swept a stuck job", { job: job.id, attempt: job.attempt });
  }
  await deleteExpiredIdempotencyKeys(env.DB, now);
}

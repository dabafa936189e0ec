// The cron sweep, once per TUNABLES.sweep.cronPeriodMs: a processing job whose runner
// stopped renewing its lease is poked (its runner polls again and carries on) by the first
// sweep that finds the lease expired, and failed with processing_interrupted by a later
// one if it is still expired then, so no job stays processing forever.
//
// The poke window is at least the cron period: the first sweep to see an expired lease
// sees it at most one period after it expired, so every stuck job is poked before it can
// be failed (docs/architecture.md: the sweep).
import { database } from "../db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../db/idempotency.ts";
import { expiredLeases } from "../db/jobs.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { finishJob } from "./finish.ts";

const { pokeWindowMs, batchSize } = TUNABLES.sweep;

export async function sweep(env: Env, now: number): Promise<void> {
  for (const job of await expiredLeases(database(env.DB), now, batchSize)) {
    const stuckForMs = now - (job.leaseExpiresAt ?? now);
    if (stuckForMs <= pokeWindowMs) {
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

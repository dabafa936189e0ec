// The cron sweep, once per TUNABLES.sweep.cronPeriodMs. The live lease of a processing
// job is in its runner, so D1's `lease_expires_at` (set when an attempt starts, never
// renewed) only says from when the sweep asks: it pokes the runner of every processing job
// past it. A runner that still holds the attempt checks on it at once (its alarm may have
// been lost) and the job is left alone; a job whose runner holds nothing is failed
// processing_interrupted by the first sweep after the poke window, so no job stays
// processing forever.
//
// The poke window is at least the cron period: a job whose runner lost it is asked about
// by at least one sweep before it can be failed (docs/architecture.md: the sweep).
import { database } from "../db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../db/idempotency.ts";
import { expiredLeases } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { finishJob } from "./finish.ts";

const { pokeWindowMs, batchSize } = TUNABLES.sweep;

export async function sweep(env: Env, now: number): Promise<void> {
  const db = database(env.DB);
  // Page through all of them: healthy long jobs stay past their lease and must not hide the rest.
  let after: { leaseExpiresAt: number; id: string } | undefined;
  for (;;) {
    const page = await expiredLeases(db, now, batchSize, after);
    for (const job of page) await sweepOne(env, job, now);
    if (page.length < batchSize) break;
    const last = page.at(-1)!;
    after = { leaseExpiresAt: last.leaseExpiresAt!, id: last.id };
  }
  await deleteExpiredIdempotencyKeys(env.DB, now);
}

async function sweepOne(env: Env, job: JobRow, now: number): Promise<void> {
  if (await env.JOB_RUNNER.getByName(job.id).poke(job.attempt)) return;
  const stuckForMs = now - (job.leaseExpiresAt ?? now);
  if (stuckForMs <= pokeWindowMs) return;
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

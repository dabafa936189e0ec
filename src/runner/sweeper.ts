// The cron sweep of stuck jobs, once per TUNABLES.sweep.cronPeriodMs: no job stays
// processing forever (docs/architecture.md: the sweep), and no workflow waits on an advance that crashed.
import { database } from "../db/client.ts";
import { expiredLeases } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { attemptEnded } from "./attempt-end.ts";
import { finishJob } from "./finish.ts";
import { repairWorkflows } from "./workflow.ts";

const { pokeWindowMs, batchSize } = TUNABLES.sweep;

/**
 * Pokes the runner of every processing job past its lease (`lease_expires_at` is set when an
 * attempt starts and never renewed: the live lease is in the runner). A runner that still
 * holds the attempt checks on it at once; a job whose runner holds nothing is failed by the
 * first sweep after the poke window, which is at least the cron period, so every such job is
 * asked about by one sweep before a later one fails it.
 */
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
  // Workflows whose advance crashed after a step's end (runner/workflow.ts).
  await repairWorkflows(env, now);
}

async function sweepOne(env: Env, job: JobRow, now: number): Promise<void> {
  if (await env.JOB_RUNNER.getByName(job.id).poke(job.attempt)) return;
  const stuckForMs = now - (job.leaseExpiresAt ?? now);
  if (stuckForMs <= pokeWindowMs) return;
  const { fail } = attemptEnded({ cause: "swept" }, { attempt: job.attempt, handBacks: 0 }, TUNABLES.job);
  const failed = await finishJob(env, job.id, { status: "failed", attempt: job.attempt, error: fail }, { now });
  if (failed) log("warn", "swept a stuck job", { job: job.id, attempt: job.attempt });
}

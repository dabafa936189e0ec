// The one way a job ends (docs/architecture.md: the job's life): a cancel from the API or
// the dashboard, the runner, the sweeper and the dead-letter consumer all call finishJob.
import type { JobError } from "../contract/job.ts";
import { database } from "../db/client.ts";
import { cancelJob, completeJob, failJob, type JobTimings } from "../db/jobs.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { deleteOutputs } from "../ops/retention.ts";
import { scheduleFinalDelivery } from "../webhooks/schedule.ts";
import { startStore } from "../destinations/store.ts";
import { dropParts } from "./fanout.ts";
import { FANNING_TYPES } from "../contract/fanout.ts";
import { advanceWorkflow } from "./workflow.ts";

export type Outcome =
  /** The processor finished attempt `attempt` and its outputs are in R2. */
  | { status: "completed"; attempt: number; result: unknown; timings?: JobTimings }
  /** Fails the job processing at `attempt`, or still queued when `attempt` is null. */
  | { status: "failed"; attempt: number | null; error: JobError; timings?: JobTimings }
  /** Stops a queued or processing job. */
  | { status: "cancelled" };

export interface FinishOptions {
  /**
   * Stops the job's runner and its processor work. By default the runner is asked to
   * cancel; the runner itself, when it is the caller, passes its own way of letting go.
   */
  stop?: () => Promise<void>;
  now?: number;
  /** More of the caller's to say in the "job finished" line: the runner says how it heard of the end and what it copied. */
  details?: Record<string, unknown>;
}

/**
 * Moves the job to its final state if it may still go there, then stops its runner, frees
 * its concurrency slot (the next waiting job starts at once), schedules its final webhook
 * and removes the outputs of a job that did not complete. True if this call
 * ended the job; false if the job had already left the state the outcome starts from
 * (ended by someone else, or on another attempt). The follow-ups run only after the guarded
 * update took effect, so once per job, by the caller that won; each is also idempotent, so
 * a retry after a crash is harmless.
 */
export async function finishJob(env: Env, jobId: string, outcome: Outcome, options: FinishOptions = {}): Promise<boolean> {
  const db = database(env.DB);
  const now = options.now ?? Date.now();
  // The update returns the final row (UPDATE … RETURNING): no read after it.
  const job =
    outcome.status === "completed"
      ? await completeJob(db, jobId, outcome.attempt, outcome.result, now, outcome.timings)
      : outcome.status === "failed"
        ? await failJob(db, jobId, outcome.attempt, outcome.error, now, outcome.timings)
        : await cancelJob(db, jobId, now);
  if (!job) return false;

  await (options.stop ?? (() => env.JOB_RUNNER.getByName(jobId).cancel()))();
  log("info", "job finished", {
    job: jobId,
    type: job.type,
    status: job.status,
    attempt: job.attempt,
    ...(job.errorCode ? { error: job.errorCode } : {}),
    // Where its time went, the same phases as the job's `timings` (docs/api.md).
    queuedMs: job.queuedMs,
    retriesMs: job.retriesMs,
    startMs: job.startMs,
    fetchInputMs: job.fetchInputMs,
    processMs: job.processMs,
    storeOutputMs: job.storeOutputMs,
    reportMs: job.reportMs,
    totalMs: now - job.createdAt,
    ...options.details,
  });
  // A part of a fanned-out job (docs/fanout.md): no slot, no webhook, no store of its own; its parent moves on.
  if (job.parentJobId) {
    if (job.status !== "completed" && job.attempt > 0) await deleteOutputs(env.OUTPUTS, jobId);
    await env.JOB_RUNNER.getByName(job.parentJobId).partEnded(job.id);
    return true;
  }
  // A job that fanned out: its parts' seats, outputs and rows go (the stitch has read them).
  if ((FANNING_TYPES as readonly string[]).includes(job.type)) await dropParts(env, jobId, (id) => finishJob(env, id, { status: "cancelled" }));
  await limiterFor(env, job.orgId, job.mode).release(jobId);
  // The one `final` delivery, when the job has a webhookUrl (unique per job, so a retry adds none).
  // A job completed with its store pending gets it when the store ends (src/destinations/store.ts),
  // so the webhook says where the files are.
  if (job.storeStatus === "pending") await startStore(env, job);
  else await scheduleFinalDelivery(env, job, now);
  // The processor uploads outputs while an attempt runs: a job that ends otherwise than
  // completed may have left some. After the stop, so no upload of the attempt is under way;
  // last, so the next job and the webhook do not wait on R2.
  if (job.status !== "completed" && job.attempt > 0) await deleteOutputs(env.OUTPUTS, jobId);
  // A workflow's step: its dependents start, or the workflow fails; the last step ends it (runner/workflow.ts).
  if (job.workflowId) await advanceWorkflow(env, job, now);
  return true;
}

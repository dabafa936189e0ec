// What an ended attempt means for its job, for every way an attempt ends: another attempt,
// or the job fails with which error. The callers (job-runner.ts, sweeper.ts, queue.ts) apply it.
import { JOB_ERRORS, type JobError } from "../contract/job.ts";
import type { Tunables } from "../lib/tunables.ts";

export type AttemptEnd =
  /** The processor reported the attempt failed (a processing_timeout included: container/src/errors.ts `stopped`). */
  | { cause: "reported"; error: JobError }
  /** The processor stopped answering, or answered that it does not have the attempt. */
  | { cause: "lost"; reason: string }
  /**
   * The processor reported the attempt cancelled though the runner never asked: it is shutting
   * down and could not finish it within its drain (container/src/jobs.ts `drain`, `handedBack`).
   */
  | { cause: "handed back" }
  /** The processor reported it completed, with a result that does not fit its job type's schema (outputs.ts `checkResult`). */
  | { cause: "invalid result"; type: string }
  /** The sweeper found a processing job past its lease whose runner no longer holds it. */
  | { cause: "swept" }
  /** The job's queue message failed every delivery: it never started. */
  | { cause: "dead-lettered" };

/** `charged`: whether the ended attempt counts against maxAttempts (a hand-back within maxHandBacks does not). */
export type AttemptDecision = { retry: true; charged: boolean } | { fail: JobError };

/**
 * Where the ended attempt stands: its number (D1's `attempt`, one per attempt begun, so the
 * processor's id `<jobId>.<attempt>` is never reused) and how many attempts before it were
 * handed back. Attempts charged so far, this one included: attempt - handBacks.
 */
export interface AttemptCount {
  attempt: number;
  handBacks: number;
}

type Limits = Pick<Tunables["job"], "maxAttempts" | "maxHandBacks">;

/**
 * Retry or fail, after the attempt at `at` ended by `end`. maxAttempts bounds the charged
 * attempts; a hand-back is not charged, up to maxHandBacks of them (so a job cannot be handed
 * back forever: a later one is charged like a lost attempt). A cancel is not among the
 * causes: the job was cancelled (finishJob) before its runner stopped the attempt.
 */
export function attemptEnded(end: Extract<AttemptEnd, { cause: "swept" | "dead-lettered" }>, at: AttemptCount | null, limits: Limits): { fail: JobError };
export function attemptEnded(end: AttemptEnd, at: AttemptCount, limits: Limits): AttemptDecision;
export function attemptEnded(end: AttemptEnd, at: AttemptCount | null, { maxAttempts, maxHandBacks }: Limits): AttemptDecision {
  const charged = at ? at.attempt - at.handBacks : 0;
  const again = charged < maxAttempts ? ({ retry: true, charged: true } as const) : undefined;
  switch (end.cause) {
    case "reported":
      return (JOB_ERRORS[end.error.code].retryable && again) || { fail: end.error };
    case "lost":
      return again ?? { fail: interrupted(end.reason, maxAttempts) };
    case "handed back":
      if (at && at.handBacks < maxHandBacks) return { retry: true, charged: false };
      return again ?? { fail: interrupted("the processor stopped the job while shutting down", maxAttempts) };
    case "invalid result":
      return { fail: { code: "invalid_result", message: `processing produced a ${end.type} result that does not fit its schema; this is a fault on our side, it has been logged` } };
    case "swept":
      return { fail: { code: "processing_interrupted", message: "processing stopped responding and the job was not completed; create it again" } };
    case "dead-lettered":
      return { fail: { code: "processing_interrupted", message: "the job could not be started after repeated attempts; create it again" } };
  }
}

function interrupted(reason: string, maxAttempts: number): JobError {
  return {
    code: "processing_interrupted",
    message: `processing was interrupted ${maxAttempts} times (${reason}); the job was not completed. Retry it by creating it again.`,
  };
}

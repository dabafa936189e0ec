// What an ended attempt means for its job, for every way an attempt ends: another attempt,
// or the job fails with which error. The callers (job-runner.ts, sweeper.ts, queue.ts) apply it.
import { JOB_ERRORS, type JobError } from "../contract/job.ts";

export type AttemptEnd =
  /** The processor reported the attempt failed (a processing_timeout included: container/src/errors.ts `stopped`). */
  | { cause: "reported"; error: JobError }
  /** The processor stopped answering, or answered that it does not have the attempt. */
  | { cause: "lost"; reason: string }
  /** The processor reported the attempt cancelled though the runner never asked: it is shutting down. */
  | { cause: "handed back" }
  /** The sweeper found a processing job past its lease whose runner no longer holds it. */
  | { cause: "swept" }
  /** The job's queue message failed every delivery: it never started. */
  | { cause: "dead-lettered" };

export type AttemptDecision = { retry: true } | { fail: JobError };

/**
 * Retry or fail, after attempt `attempt` of at most `maxAttempts` ended by `end`. A cancel is
 * not among the causes: the job was cancelled (finishJob) before its runner stopped the attempt.
 */
export function attemptEnded(end: Extract<AttemptEnd, { cause: "swept" | "dead-lettered" }>, attempt: number | null, maxAttempts: number): { fail: JobError };
export function attemptEnded(end: AttemptEnd, attempt: number, maxAttempts: number): AttemptDecision;
export function attemptEnded(end: AttemptEnd, attempt: number | null, maxAttempts: number): AttemptDecision {
  attempt ??= 0;
  switch (end.cause) {
    case "reported":
      return JOB_ERRORS[end.error.code].retryable && attempt < maxAttempts ? { retry: true } : { fail: end.error };
    case "lost":
      return attempt < maxAttempts ? { retry: true } : { fail: interrupted(end.reason, maxAttempts) };
    case "handed back":
      return attempt < maxAttempts ? { retry: true } : { fail: interrupted("the processor stopped the job while shutting down", maxAttempts) };
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

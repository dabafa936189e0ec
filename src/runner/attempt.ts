// An attempt as the JobRunner keeps it (src/runner/job-runner.ts), and the runner's pure
// decisions about it: what a new attempt looks like, when its progress reaches D1, when the
// watchdog fires next, when failed calls mean the processor lost it, and the error a job
// gets after its last lost attempt. The runner applies them; it alone changes state.
import type { JobError } from "../contract/job.ts";
import type { JobType } from "../contract/registry.ts";
import type { JobRow } from "../db/schema.ts";
import { TUNABLES } from "../lib/tunables.ts";

const { maxAttempts } = TUNABLES.job;
const { heartbeatMs, silentHeartbeats, progressWriteMs, progressMarks, failedCallDelayMs, maxCallFailures } = TUNABLES.runner;

/** When the watchdog asks the processor, if no event came since `now`. */
export function silenceAlarmAt(now: number): number {
  return now + heartbeatMs * silentHeartbeats;
}

/** When a call to the processor that failed (or may fail) at `now` is made again. */
export function retryAlarmAt(now: number): number {
  return now + failedCallDelayMs;
}

/** What the runner keeps in its storage while an attempt runs. */
export interface Attempt {
  jobId: string;
  orgId: string;
  mode: string;
  type: JobType;
  attempt: number;
  /** The processor's id for this attempt: `<jobId>.<attempt>`. */
  pid: string;
  /** The pool instance whose seat this attempt holds (src/limits/processor-pool.ts). */
  instance: string;
  /** Whether the processor acknowledged the start; until then each alarm sends it again. */
  started: boolean;
  /** Consecutive failed calls to the processor. */
  failures: number;
  /** The latest progress the processor reported (D1 has it at the marks only). */
  progress: number;
  /** When progress was last written to D1, and what was written. */
  progressWrittenAt: number;
  progressWritten: number;
}

/** The attempt the row `job` (just moved to it by startAttempt) runs on `instance`, not yet started. */
export function newAttempt(job: Pick<JobRow, "id" | "orgId" | "mode" | "type" | "attempt">, instance: string): Attempt {
  return {
    jobId: job.id,
    orgId: job.orgId,
    mode: job.mode,
    type: job.type as JobType,
    attempt: job.attempt,
    pid: `${job.id}.${job.attempt}`,
    instance,
    started: false,
    failures: 0,
    progress: 0,
    progressWrittenAt: 0,
    progressWritten: 0,
  };
}

/**
 * The attempt after the processor reported `progress` at `now`, and whether that progress
 * goes to D1: when it passed a mark since the last write, and not more often than
 * progressWriteMs.
 */
export function withProgress(current: Attempt, progress: number, now: number): { next: Attempt; write: boolean } {
  const next = { ...current, progress: Math.max(current.progress, progress) };
  const mark = progressMarks.findLast((m) => next.progress >= m) ?? 0;
  if (mark <= next.progressWritten || now - next.progressWrittenAt < progressWriteMs) return { next, write: false };
  return { next: { ...next, progressWritten: mark, progressWrittenAt: now }, write: true };
}

/** The attempt after one more failed call to the processor, whether it now counts as lost, and when to try again. */
export function afterFailedCall(current: Attempt, now: number): { next: Attempt; lost: boolean; retryAt: number } {
  const next = { ...current, failures: current.failures + 1 };
  return { next, lost: next.failures >= maxCallFailures, retryAt: retryAlarmAt(now) };
}

/** Whether a lost attempt is followed by another one. */
export function mayRetry(current: Attempt): boolean {
  return current.attempt < maxAttempts;
}

/** The error of a job whose last attempt the processor lost. */
export function interrupted(reason: string): JobError {
  return {
    code: "processing_interrupted",
    message: `processing was interrupted ${maxAttempts} times (${reason}); the job was not completed. Retry it by creating it again.`,
  };
}

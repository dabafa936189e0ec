// A job failure in public words: `code` is one of the job error codes of the contract and
// `message` tells the user what was wrong with their input. Internal detail goes in `cause`
// and is logged, never returned.
import type { JobErrorCode } from "../../src/contract/job.ts";

export class JobFailure extends Error {
  readonly code: JobErrorCode;
  constructor(code: JobErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "JobFailure";
    this.code = code;
  }
}

/** Thrown when a job was cancelled while it ran; not a failure. */
export class JobCancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "JobCancelled";
  }
}

/**
 * What stopped work whose `signal` aborted, decided here only: the job's own time limit (a
 * TimeoutError reason, as AbortSignal.timeout gives) is a processing_timeout; anything else
 * (the runner's cancel, a DELETE, a refused upload) is a cancel. `limitMs` names the limit.
 */
export function stopped(signal: AbortSignal, limitMs?: number): JobFailure | JobCancelled {
  if ((signal.reason as Error | undefined)?.name !== "TimeoutError") return new JobCancelled();
  const limit = limitMs === undefined ? "the job's time limit" : `the limit of ${Math.round(limitMs / 60_000)} minutes`;
  return new JobFailure("processing_timeout", `processing took longer than ${limit}`);
}

/** Throws what stopped the job (stopped()) once its `signal` aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw stopped(signal);
}

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

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new JobCancelled();
}

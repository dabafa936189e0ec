// What an ended attempt means, for every cause (src/runner/attempt-end.ts), table-tested.
// In test/limits/ until the "processor" project includes a test/runner/ of its own.
import { describe, expect, it } from "vitest";
import { JOB_ERROR_CODES, JOB_ERRORS, type JobError } from "../../src/contract/job.ts";
import { attemptEnded, type AttemptDecision, type AttemptEnd } from "../../src/runner/attempt-end.ts";

const MAX = 3;
const interrupted = (reason: string): AttemptDecision => ({
  fail: { code: "processing_interrupted", message: `processing was interrupted 3 times (${reason}); the job was not completed. Retry it by creating it again.` },
});
const reported = (code: JobError["code"]): AttemptEnd => ({ cause: "reported", error: { code, message: `${code} said` } });

describe("attemptEnded", () => {
  const cases: [string, AttemptEnd, number, AttemptDecision][] = [
    ["a reported failure ends the job with its own error, on the first attempt", reported("corrupt_media"), 1, { fail: { code: "corrupt_media", message: "corrupt_media said" } }],
    ["a reported timeout ends the job processing_timeout", reported("processing_timeout"), 1, { fail: { code: "processing_timeout", message: "processing_timeout said" } }],
    ["a lost attempt is retried while attempts remain", { cause: "lost", reason: "the processor stopped answering" }, 1, { retry: true }],
    ["a lost attempt before the last is retried", { cause: "lost", reason: "the processor stopped answering" }, MAX - 1, { retry: true }],
    ["the last lost attempt fails the job processing_interrupted, saying why", { cause: "lost", reason: "the processor stopped answering" }, MAX, interrupted("the processor stopped answering")],
    ["a handed-back attempt is retried while attempts remain", { cause: "handed back" }, 1, { retry: true }],
    ["the last handed-back attempt fails the job", { cause: "handed back" }, MAX, interrupted("the processor stopped the job while shutting down")],
    ["a swept job fails processing_interrupted", { cause: "swept" }, 1, { fail: { code: "processing_interrupted", message: "processing stopped responding and the job was not completed; create it again" } }],
    ["a dead-lettered job fails processing_interrupted", { cause: "dead-lettered" }, 0, { fail: { code: "processing_interrupted", message: "the job could not be started after repeated attempts; create it again" } }],
  ];
  it.each(cases)("%s", (_name, end, attempt, decision) => {
    expect(attemptEnded(end, attempt, MAX)).toEqual(decision);
  });

  it("ends the job on every code a processor reports today: none is retryable", () => {
    for (const code of JOB_ERROR_CODES) {
      expect(JOB_ERRORS[code].retryable, code).toBe(false);
      expect(attemptEnded(reported(code), 1, MAX), code).toEqual({ fail: { code, message: `${code} said` } });
    }
  });
});

// What an ended attempt means, for every cause (src/runner/attempt-end.ts), table-tested.
// In test/limits/ until the "processor" project includes a test/runner/ of its own.
import { describe, expect, it } from "vitest";
import { JOB_ERROR_CODES, JOB_ERRORS, type JobError } from "../../src/contract/job.ts";
import { attemptEnded, type AttemptDecision, type AttemptEnd } from "../../src/runner/attempt-end.ts";

const MAX = 3;
const HAND_BACKS = 2;
const LIMITS = { maxAttempts: MAX, maxHandBacks: HAND_BACKS };
const at = (attempt: number, handBacks = 0) => ({ attempt, handBacks });
const again = { retry: true, charged: true } as const;
const handedBack: AttemptEnd = { cause: "handed back" };
const lost: AttemptEnd = { cause: "lost", reason: "the processor stopped answering" };
const interrupted = (reason: string): AttemptDecision => ({
  fail: { code: "processing_interrupted", message: `processing was interrupted 3 times (${reason}); the job was not completed. Retry it by creating it again.` },
});
const reported = (code: JobError["code"]): AttemptEnd => ({ cause: "reported", error: { code, message: `${code} said` } });

describe("attemptEnded", () => {
  const cases: [string, AttemptEnd, { attempt: number; handBacks: number } | null, AttemptDecision][] = [
    ["a reported failure ends the job with its own error, on the first attempt", reported("corrupt_media"), at(1), { fail: { code: "corrupt_media", message: "corrupt_media said" } }],
    ["a reported timeout ends the job processing_timeout", reported("processing_timeout"), at(1), { fail: { code: "processing_timeout", message: "processing_timeout said" } }],
    ["a lost attempt is retried while attempts remain, and charged", lost, at(1), again],
    ["a lost attempt before the last is retried", lost, at(MAX - 1), again],
    ["the last lost attempt fails the job processing_interrupted, saying why", lost, at(MAX), interrupted("the processor stopped answering")],
    ["a lost attempt after hand-backs is retried: only charged attempts count", lost, at(MAX + HAND_BACKS - 1, HAND_BACKS), again],
    ["the last charged attempt after hand-backs fails the job", lost, at(MAX + HAND_BACKS, HAND_BACKS), interrupted("the processor stopped answering")],
    ["a handed-back attempt is retried uncharged", handedBack, at(1), { retry: true, charged: false }],
    ["a handed-back attempt is retried uncharged even at the last charged attempt", handedBack, at(MAX), { retry: true, charged: false }],
    ["the last uncharged hand-back is retried uncharged", handedBack, at(HAND_BACKS, HAND_BACKS - 1), { retry: true, charged: false }],
    ["a hand-back past maxHandBacks is charged, and retried while attempts remain", handedBack, at(HAND_BACKS + 1, HAND_BACKS), again],
    ["a hand-back past maxHandBacks at the last charged attempt fails the job", handedBack, at(MAX + HAND_BACKS, HAND_BACKS), interrupted("the processor stopped the job while shutting down")],
    ["a result that does not fit its type fails the job invalid_result, on the first attempt", { cause: "invalid result", type: "videoThumbnail" }, at(1), { fail: { code: "invalid_result", message: "processing produced a videoThumbnail result that does not fit its schema; this is a fault on our side, it has been logged" } }],
    ["a swept job fails processing_interrupted", { cause: "swept" }, at(1), { fail: { code: "processing_interrupted", message: "processing stopped responding and the job was not completed; create it again" } }],
    ["a dead-lettered job fails processing_interrupted", { cause: "dead-lettered" }, null, { fail: { code: "processing_interrupted", message: "the job could not be started after repeated attempts; create it again" } }],
  ];
  it.each(cases)("%s", (_name, end, count, decision) => {
    expect(attemptEnded(end, count as { attempt: number; handBacks: number }, LIMITS)).toEqual(decision);
  });

  it("ends the job on every code about its input or its work; retries the one that says the service failed it, while attempts are left", () => {
    for (const code of JOB_ERROR_CODES) {
      const retryable = code === "processing_interrupted";
      expect(JOB_ERRORS[code].retryable, code).toBe(retryable);
      expect(attemptEnded(reported(code), at(1), LIMITS), code).toEqual(retryable ? { retry: true, charged: true } : { fail: { code, message: `${code} said` } });
    }
    expect(attemptEnded(reported("processing_interrupted"), at(LIMITS.maxAttempts), LIMITS)).toEqual({ fail: { code: "processing_interrupted", message: "processing_interrupted said" } });
  });
});

// An attempt as the JobRunner keeps it (src/runner/state.ts), and the pure rules for it:
// what a new attempt looks like, when its progress reaches D1, when failed calls lose it.
import type { JobPart } from "../contract/fanout.ts";
import type { JobTimings as Phases } from "../contract/job.ts";
import type { ProcessorJobState } from "../contract/processor-protocol.ts";
import type { JobType } from "../contract/registry.ts";
import type { JobRow } from "../db/schema.ts";
import { TUNABLES, type Tunables } from "../lib/tunables.ts";

type Timings = Pick<Tunables["runner"], "progressWriteMs" | "progressMarks" | "maxCallFailures">;

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
  /**
   * The attempt's own credential (credentials.ts newAttemptToken), sent in its start request's callback:
   * its events, uploads and input reads carry it, and the processor asks for it on the
   * attempt's routes. Kept only here, in the runner's storage; absent in an attempt an
   * older deploy began (nothing it sends is then taken: it is lost and retried).
   */
  token: string;
  /**
   * Attempts of this job before this one that a draining processor handed back: not charged
   * (src/runner/attempt-end.ts). Kept here and in the SeatRequest, not in D1: the runner holds
   * the job from its first seat to its end, and a job whose runner lost its state is swept
   * (failed) anyway. Absent in a state an older deploy stored: 0.
   */
  handBacks?: number;
  /** Consecutive failed calls to the processor (a start, a check, a copy of an output). */
  failures: number;
  /**
   * Since when its starts have been answered by the platform, not the processor: no
   * container could be had (src/runner/transport.ts ContainerUnavailable `notStarted`).
   * Such answers cost no failed call until runner.containerStartDeadlineMs has passed.
   */
  unstartedSince?: number;
  /** Since when its starts have been refused by processors that will not run it (SeatRequest.refusedSince). */
  refusedSince?: number;
  /** The latest progress the processor reported (D1 has it at the marks only). */
  progress: number;
  /** When progress was last written to D1, and what was written. */
  progressWrittenAt: number;
  progressWritten: number;
  /** When the attempt began (its row moved to it); absent in a state an older deploy kept. */
  begunAt?: number;
  /** The job's first attempt's start until this one's (0 for the first): the job's `retriesMs`. */
  retriesMs?: number;
  /** The start sent until the processor's first word of the attempt (its answer or an event): the job's `startMs`. */
  startMs?: number;
  /** The processor said it cannot push events (its push path is broken): the runner polls it instead (TUNABLES.runner.brokenPushPollMs). */
  pushBroken?: boolean;
  /** How the runner heard of the attempt's end: pushed by the processor, or asked for after a silence or while polling. */
  endHeard?: "push" | "check";
  /** The part of a fanned-out job it does (docs/fanout.md): a part's result is no job type's, and a stitch ends the fan-out. */
  part?: JobPart["role"];
}

/** The attempt the row `job` (just moved to it by startAttempt at `now`) runs on `instance`, with its `token`, after `handBacks` hand-backs. */
export function newAttempt(
  job: Pick<JobRow, "id" | "orgId" | "mode" | "type" | "attempt"> & Partial<Pick<JobRow, "startedAt" | "part">>,
  instance: string,
  token: string,
  handBacks = 0,
  now = Date.now(),
): Attempt {
  return {
    jobId: job.id,
    orgId: job.orgId,
    mode: job.mode,
    type: job.type as JobType,
    attempt: job.attempt,
    pid: `${job.id}.${job.attempt}`,
    ...(job.part ? { part: job.part.role } : {}),
    instance,
    token,
    handBacks,
    failures: 0,
    progress: 0,
    progressWrittenAt: 0,
    progressWritten: 0,
    begunAt: now,
    retriesMs: Math.max(0, now - (job.startedAt ?? now)),
  };
}

/**
 * The attempt once the processor answered or pushed `answer` at `now`: the first word of
 * it ends the start (`startMs`: a cold container's start is in it), and a running state
 * that carries the processor's push path says whether events can reach the runner.
 */
export function heardFrom(current: Attempt, answer: ProcessorJobState, now: number): Attempt {
  const startMs = current.startMs ?? (current.begunAt === undefined ? undefined : Math.max(0, now - current.begunAt));
  const pushPath = answer.state === "running" ? answer.pushPath : undefined;
  return { ...current, startMs, pushBroken: pushPath ? !pushPath.ok : current.pushBroken };
}

/**
 * The last attempt's phases when its job ends at `now`, with the processor's own. They
 * follow one another: the start, the processor's fetch, process and store, then `reportMs`,
 * the rest until `now`: the time the news of the end took to be recorded (a push in a few
 * ms; a silence the runner had to notice, seconds). The processor begins the work as it
 * answers the start, so the work may overlap the answer's way back to the runner (tens of
 * ms on a busy machine): the start then ends where the work began, no phase is counted
 * twice, and they add up to the attempt's time.
 */
export function attemptTimings(current: Attempt, processor: Partial<Phases> | undefined, now: number): Partial<Phases> {
  const { retriesMs, startMs, begunAt } = current;
  if (begunAt === undefined || startMs === undefined) return { ...processor, retriesMs, startMs, reportMs: undefined };
  const worked = (processor?.fetchInputMs ?? 0) + (processor?.processMs ?? 0) + (processor?.storeOutputMs ?? 0);
  const rest = now - begunAt - startMs - worked;
  return { ...processor, retriesMs, startMs: Math.max(0, startMs + Math.min(0, rest)), reportMs: Math.max(0, rest) };
}

/**
 * The attempt after the processor reported `progress` at `now`, and whether that progress
 * goes to D1: when it passed a mark since the last write, and not more often than
 * progressWriteMs.
 */
export function withProgress(current: Attempt, progress: number, now: number, { progressWriteMs, progressMarks }: Timings = TUNABLES.runner): { next: Attempt; write: boolean } {
  const next = { ...current, failures: 0, progress: Math.max(current.progress, progress) };
  const mark = progressMarks.findLast((m) => next.progress >= m) ?? 0;
  if (mark <= next.progressWritten || now - next.progressWrittenAt < progressWriteMs) return { next, write: false };
  return { next: { ...next, progressWritten: mark, progressWrittenAt: now }, write: true };
}

/**
 * The attempt after the platform answered its start with no container at `now`: unchanged
 * but for `unstartedSince` while runner.containerStartDeadlineMs has not passed (the start
 * is sent again soon, no failed call counted), or undefined once it has (a failed call).
 */
export function afterNoContainer(current: Attempt, now: number, { containerStartDeadlineMs }: Pick<Tunables["runner"], "containerStartDeadlineMs"> = TUNABLES.runner): Attempt | undefined {
  const since = current.unstartedSince ?? now;
  return now - since < containerStartDeadlineMs ? { ...current, unstartedSince: since } : undefined;
}

/**
 * The attempt after a processor that will not run it (draining, another protocol version)
 * refused its start at `now`: marked `refusedSince` (the same attempt then waits for a seat
 * elsewhere), or "lost" once runner.refusedStartDeadlineMs has passed since the first refusal.
 */
export function afterRefusedStart(current: Attempt, now: number, { refusedStartDeadlineMs }: Pick<Tunables["runner"], "refusedStartDeadlineMs"> = TUNABLES.runner): Attempt | "lost" {
  const since = current.refusedSince ?? now;
  return now - since >= refusedStartDeadlineMs ? "lost" : { ...current, refusedSince: since };
}

/** The attempt after one more failed call to the processor, or "lost" when that was one too many. */
export function afterFailedCall(current: Attempt, { maxCallFailures }: Timings = TUNABLES.runner): Attempt | "lost" {
  const failures = current.failures + 1;
  return failures >= maxCallFailures ? "lost" : { ...current, failures };
}

// The JobRunner's state: one value under one storage key, the phase of its job, and the
// pure rules over it (when its alarm fires, what it holds, how an older deploy's keys read).
import type { FanoutPlan } from "../contract/fanout.ts";
import type { ProcessorJobState } from "../contract/processor-protocol.ts";
import { TUNABLES, type Tunables } from "../lib/tunables.ts";
import type { Attempt } from "./attempt.ts";
import type { SeatRequest } from "./seat.ts";

/** Each phase's `since`: when the runner entered it, last heard from the processor, or last failed to reach it. */
export type RunnerState =
  /** Waiting for a seat in the pool; asks again waitCheckMs after `since`. */
  | { phase: "waiting"; request: SeatRequest; since: number }
  /** The start was sent and not acknowledged yet; sent again startWaitMs after `since` (failedCallDelayMs after a failed start). */
  | { phase: "starting"; attempt: Attempt; since: number }
  /** The processor runs it; asked after a silence (or every brokenPushPollMs while it cannot push), or failedCallDelayMs after a failed call. */
  | { phase: "running"; attempt: Attempt; since: number }
  /** The processor reported its end (`final`); the runner records it, and again from the alarm should this invocation die. */
  | { phase: "ending"; attempt: Attempt; final: ProcessorJobState; since: number }
  /** Letting go of the processor's attempt (`how`) and the seat, then forgetting everything; the alarm finishes it should this invocation die. */
  | { phase: "leaving"; jobId: string; attempt?: Attempt; how: "cancel" | "delete"; since: number }
  /**
   * Fanned out (docs/fanout.md): attempt `planAttempt` planned `plan`, and the job's parts run on
   * runners of their own, at most `seats` at once; no seat is held here. `started`: the parts whose runners were
   * started. Looked at when a part ends (partEnded), and fanout.checkMs after `since`.
   */
  | { phase: "fanned"; jobId: string; planAttempt: number; handBacks: number; plan: FanoutPlan; seats: number; started: string[]; since: number };

export type WithAttempt = Extract<RunnerState, { attempt: Attempt }>;
export type InPhase<P extends RunnerState["phase"]> = Extract<RunnerState, { phase: P }>;

/** The storage key of the state; nothing else is stored. */
export const STATE_KEY = "state";

/** When the runner's alarm fires in `state`: its only timer. */
export function alarmAt(state: RunnerState, t: Pick<Tunables, "runner" | "pool" | "fanout"> = TUNABLES): number {
  const { heartbeatMs, silentHeartbeats, failedCallDelayMs, brokenPushPollMs } = t.runner;
  switch (state.phase) {
    case "fanned":
      return state.since + t.fanout.checkMs;
    case "waiting":
      return state.since + t.pool.waitCheckMs;
    case "starting":
      // A start in flight may be a cold container's (startWaitMs); one that failed, or that
      // the platform answered with no container, is sent again soon.
      return state.since + (state.attempt.failures > 0 || state.attempt.unstartedSince !== undefined ? failedCallDelayMs : t.runner.startWaitMs);
    case "leaving":
      return state.since + failedCallDelayMs;
    case "running":
    case "ending": {
      const silence = state.phase === "running" && state.attempt.pushBroken ? brokenPushPollMs : heartbeatMs * silentHeartbeats;
      return state.since + (state.attempt.failures > 0 ? failedCallDelayMs : silence);
    }
  }
}

/** The job the runner has in `state`. */
export function jobOf(state: RunnerState): string {
  return state.phase === "waiting" ? state.request.jobId : state.phase === "leaving" || state.phase === "fanned" ? state.jobId : state.attempt.jobId;
}

/** The attempt the runner holds on a processor in `state`: not while it waits, nor once it lets go. */
export function heldAttempt(state: RunnerState | undefined): Attempt | undefined {
  return hasAttempt(state) ? state.attempt : undefined;
}

export function hasAttempt(state: RunnerState | undefined): state is WithAttempt {
  return state?.phase === "starting" || state?.phase === "running" || state?.phase === "ending";
}

/** Whether the runner holds an attempt whose end it has not heard: progress may still be taken. */
export function runsUnended(state: RunnerState | undefined): boolean {
  return state?.phase === "starting" || state?.phase === "running";
}

/**
 * The step the runner is at in `state`: the attempt it holds (its id, whatever the phase), or
 * the attempt it waits for a seat to begin; none while it lets go. A call that waited on the
 * processor, the pool or D1 goes on only at the step it began in (JobRunner#resume).
 */
export function stepOf(state: RunnerState | undefined): string | undefined {
  if (hasAttempt(state)) return state.attempt.pid;
  if (state?.phase === "fanned") return `${state.jobId} fanned out after ${state.planAttempt}`;
  return state?.phase === "waiting" ? `${state.request.jobId} waiting after ${state.request.previousAttempt}` : undefined;
}

/**
 * The state as an older deploy kept it, in the keys `seatRequest`, `attempt` (with
 * `started`) and `final`; read at `now`, so the alarm it gets is due soon.
 */
export function fromOldKeys(old: { seatRequest?: SeatRequest; attempt?: Attempt & { started?: boolean }; final?: ProcessorJobState }, now: number): RunnerState | undefined {
  if (old.seatRequest) return { phase: "waiting", request: old.seatRequest, since: now - TUNABLES.pool.waitCheckMs };
  if (!old.attempt) return undefined;
  const { started, ...attempt } = old.attempt;
  if (old.final?.id === attempt.pid) return { phase: "ending", attempt, final: old.final, since: now };
  return { phase: started ? "running" : "starting", attempt, since: now };
}

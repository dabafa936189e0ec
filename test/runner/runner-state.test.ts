// The JobRunner's state (src/runner/state.ts) and the pure rules of its seat and attempts.
import { describe, expect, it } from "vitest";
import { POOL } from "../../src/limits/pool-plan.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { afterFailedCall, afterNoContainer, afterRefusedStart, attemptTimings, heardFrom, newAttempt, withProgress } from "../../src/runner/attempt.ts";
import { seatRequest, stillWaiting } from "../../src/runner/seat.ts";
import { alarmAt, fromOldKeys, heldAttempt, jobOf, type RunnerState } from "../../src/runner/state.ts";

const { heartbeatMs, silentHeartbeats, failedCallDelayMs, maxCallFailures, progressWriteMs, startWaitMs, containerStartDeadlineMs, refusedStartDeadlineMs, brokenPushPollMs } = TUNABLES.runner;
const job = { id: "job_1", orgId: "org_1", mode: "live" as const, type: "compressImage", attempt: 1, priority: 5, createdAt: 1_000 };
const attempt = newAttempt(job, "processor-0", "a".repeat(43));
const request = seatRequest(job, 1);
const final = { id: attempt.pid, state: "cancelled", progress: 10 } as const;
const T = 1_000_000;

describe("the runner's alarm", () => {
  const cases: [string, RunnerState, number][] = [
    ["waiting: asks the pool again", { phase: "waiting", request, since: T }, T + POOL.waitCheckMs],
    ["starting: sends the start again once a cold container's start would have answered", { phase: "starting", attempt, since: T }, T + startWaitMs],
    ["starting after a failed start: sends it again soon", { phase: "starting", attempt: { ...attempt, failures: 1 }, since: T }, T + failedCallDelayMs],
    ["starting while the platform has no container: sends it again soon", { phase: "starting", attempt: { ...attempt, unstartedSince: T }, since: T }, T + failedCallDelayMs],
    ["running: asks the processor after a silence", { phase: "running", attempt, since: T }, T + heartbeatMs * silentHeartbeats],
    ["running after a failed call: asks again soon", { phase: "running", attempt: { ...attempt, failures: 1 }, since: T }, T + failedCallDelayMs],
    ["running on a processor that cannot push: polls it", { phase: "running", attempt: { ...attempt, pushBroken: true }, since: T }, T + brokenPushPollMs],
    ["ending: records the end again, should this invocation die", { phase: "ending", attempt, final, since: T }, T + heartbeatMs * silentHeartbeats],
    ["ending after a failed copy: tries again soon", { phase: "ending", attempt: { ...attempt, failures: 2 }, final, since: T }, T + failedCallDelayMs],
    ["leaving: finishes letting go", { phase: "leaving", jobId: job.id, attempt, how: "delete", since: T }, T + failedCallDelayMs],
  ];
  it.each(cases)("%s", (_name, state, at) => {
    expect(alarmAt(state)).toBe(at);
    expect(jobOf(state)).toBe(job.id);
  });

  it("holds an attempt on a processor only while starting, running or ending", () => {
    const held = cases.map(([, state]) => [state.phase, heldAttempt(state) === attempt || heldAttempt(state)?.pid === attempt.pid]);
    expect(Object.fromEntries(held)).toEqual({ waiting: false, starting: true, running: true, ending: true, leaving: false });
  });
});

describe("an older deploy's keys", () => {
  it("read as the one state", () => {
    expect(fromOldKeys({}, T)).toBeUndefined();
    expect(fromOldKeys({ seatRequest: request }, T)).toEqual({ phase: "waiting", request, since: T - POOL.waitCheckMs });
    expect(fromOldKeys({ attempt: { ...attempt, started: false } }, T)).toEqual({ phase: "starting", attempt, since: T });
    expect(fromOldKeys({ attempt: { ...attempt, started: true } }, T)).toEqual({ phase: "running", attempt, since: T });
    expect(fromOldKeys({ attempt: { ...attempt, started: true }, final }, T)).toEqual({ phase: "ending", attempt, final, since: T });
    // A final state of another attempt is not this one's end.
    expect(fromOldKeys({ attempt: { ...attempt, started: true }, final: { ...final, id: "job_1.0" } }, T)).toMatchObject({ phase: "running" });
  });
});

describe("seat and attempt rules", () => {
  it("a job still waits while it is queued or processing at the attempt it asked from", () => {
    expect(stillWaiting(request, { status: "processing", attempt: 1 })).toBe(true);
    expect(stillWaiting(seatRequest(job, 0), { status: "queued", attempt: 0 })).toBe(true);
    expect(stillWaiting(request, { status: "processing", attempt: 2 })).toBe(false);
    expect(stillWaiting(request, { status: "cancelled", attempt: 1 })).toBe(false);
    expect(stillWaiting(request, undefined)).toBe(false);
  });

  it("writes progress to D1 at a mark, not more often than progressWriteMs", () => {
    const first = withProgress({ ...attempt, failures: 2 }, 30, T);
    expect(first).toMatchObject({ write: true, next: { progress: 30, progressWritten: 25, progressWrittenAt: T, failures: 0 } });
    expect(withProgress(first.next, 60, T + progressWriteMs - 1)).toMatchObject({ write: false, next: { progress: 60, progressWritten: 25 } });
    expect(withProgress(first.next, 60, T + progressWriteMs)).toMatchObject({ write: true, next: { progressWritten: 50 } });
    expect(withProgress(first.next, 20, T + progressWriteMs)).toMatchObject({ write: false, next: { progress: 30 } });
  });

  it("counts failed calls until maxCallFailures loses the attempt", () => {
    let current: typeof attempt | "lost" = attempt;
    for (let n = 1; n < maxCallFailures; n++) {
      current = afterFailedCall(current as typeof attempt);
      expect(current).toMatchObject({ failures: n });
    }
    expect(afterFailedCall(current as typeof attempt)).toBe("lost");
  });

  it("lets processors that will not run an attempt refuse its start until refusedStartDeadlineMs, then counts it lost", () => {
    const first = afterRefusedStart(attempt, T);
    expect(first).toMatchObject({ refusedSince: T, failures: 0 });
    expect(afterRefusedStart(first as typeof attempt, T + refusedStartDeadlineMs - 1)).toMatchObject({ refusedSince: T });
    expect(afterRefusedStart(first as typeof attempt, T + refusedStartDeadlineMs)).toBe("lost");
  });

  it("lets the platform's no-container answers cost no failed call until containerStartDeadlineMs has passed", () => {
    const first = afterNoContainer(attempt, T);
    expect(first).toMatchObject({ unstartedSince: T, failures: 0 });
    expect(afterNoContainer(first!, T + containerStartDeadlineMs - 1)).toMatchObject({ unstartedSince: T, failures: 0 });
    expect(afterNoContainer(first!, T + containerStartDeadlineMs)).toBeUndefined();
  });
});

describe("an attempt's phases", () => {
  const begun = newAttempt({ ...job, attempt: 2, startedAt: T - 4_000 }, "processor-0", "a".repeat(43), 0, T);
  const running = (pushPath?: { ok: boolean; checkedAt: number }) => ({ id: begun.pid, state: "running" as const, progress: 0, ...(pushPath ? { pushPath } : {}) });

  it("counts the earlier attempts from the job's first start, and the start until the processor's first word", () => {
    expect(begun).toMatchObject({ begunAt: T, retriesMs: 4_000 });
    const heard = heardFrom(begun, running(), T + 1_700);
    expect(heard.startMs).toBe(1_700);
    // Only the first word ends the start.
    expect(heardFrom(heard, running(), T + 5_000).startMs).toBe(1_700);
  });

  it("follows what the processor says of its push path, and keeps what it knew when it says nothing", () => {
    const broken = heardFrom(begun, running({ ok: false, checkedAt: T }), T);
    expect(broken.pushBroken).toBe(true);
    expect(heardFrom(broken, running(), T).pushBroken).toBe(true);
    expect(heardFrom(broken, running({ ok: true, checkedAt: T }), T).pushBroken).toBe(false);
  });

  it("reports the rest of the time, after the processor's own phases, as reportMs: the phases add up to the attempt", () => {
    const heard = heardFrom(begun, running(), T + 1_700);
    const timings = attemptTimings(heard, { fetchInputMs: 100, processMs: 400, storeOutputMs: 50 }, T + 2_300);
    expect(timings).toEqual({ retriesMs: 4_000, startMs: 1_700, fetchInputMs: 100, processMs: 400, storeOutputMs: 50, reportMs: 50 });
    // The work began before the start's answer reached the runner (it overlaps the answer's
    // way back): the start ends where the work began, and nothing is counted twice.
    expect(attemptTimings(heard, { fetchInputMs: 100, processMs: 400, storeOutputMs: 50 }, T + 2_220)).toMatchObject({ startMs: 1_670, reportMs: 0 });
    // An attempt an older deploy began has no start to measure from: neither phase is made up.
    expect(attemptTimings({ ...heard, begunAt: undefined, startMs: undefined }, {}, T)).toMatchObject({ startMs: undefined, reportMs: undefined });
  });
});

// Waiting for a job to finish: long-polls with `Prefer: wait` where the server honours it,
// polls with back-off otherwise (docs/sdk.md).
import { toSdkJob } from "../../../src/contract/dialects.ts";
import type { HttpJob } from "../../../src/contract/job.ts";
import { TimeoutError } from "./errors.ts";
import type { ClientContext } from "./base.ts";
import { jobPath } from "./http.ts";
import { TIMINGS } from "./timings.ts";
import type { WaitOptions } from "./calls.ts";
import type { SdkJob, SdkJobStatus } from "./types.ts";

/** The statuses a job ends in. */
export const FINAL_STATUSES: ReadonlySet<SdkJobStatus> = new Set(["completed", "failed", "cancelled"]);

/** What waiting needs of the client; a `Prefer: wait` stays well within one request's `timeout`. */
export type WaitDeps = Pick<ClientContext, "request" | "now" | "sleep" | "timeout">;

/** The job once finished (completed, failed or cancelled); TimeoutError past `timeout`. */
export async function waitForJob(deps: WaitDeps, jobId: string, options: WaitOptions): Promise<SdkJob> {
  return waitUntilFinal(deps, {
    path: jobPath(jobId),
    convert: (data) => toSdkJob(data as HttpJob),
    timedOut: (job, timeout) => new TimeoutError(`Timeout: job ${jobId} is still ${job.status} after ${timeout} ms of waiting`, jobId, job),
  }, options);
}

/** What `waitUntilFinal` waits on: a job or a workflow. */
export interface Waited<T> {
  path: string;
  /** The answer in the client dialect. */
  convert: (data: unknown) => T;
  /** The error past `timeout`, with the last read. */
  timedOut: (last: T, timeout: number) => Error;
}

/**
 * Reads `target` until it is finished and returns it: each read asks the server to hold it
 * (`Prefer: wait`); where the server does not, polls with back-off (from `pollInterval`,
 * growing while nothing changes). `timedOut` past `timeout`.
 */
export async function waitUntilFinal<T extends { status: SdkJobStatus; progress: number | null }>(
  deps: WaitDeps,
  target: Waited<T>,
  options: { timeout?: number; pollInterval?: number; onProgress?: (value: T) => void; signal?: AbortSignal },
): Promise<T> {
  const { timeout = TIMINGS.waitTimeoutMs, pollInterval = TIMINGS.pollIntervalMs, onProgress, signal } = options;
  const deadline = deps.now() + timeout;
  let interval = pollInterval;
  let last: T | undefined;
  for (;;) {
    const waitS = preferWaitSeconds(deadline - deps.now(), deps.timeout);
    const answer = await deps.request<unknown>({
      method: "GET",
      path: target.path,
      ...(waitS > 0 ? { headers: { Prefer: `wait=${waitS}` } } : {}),
      signal,
    });
    const value = target.convert(answer.data);
    const changed = last === undefined || value.status !== last.status || value.progress !== last.progress;
    last = value;
    onProgress?.(value);
    if (FINAL_STATUSES.has(value.status)) return value;
    const remaining = deadline - deps.now();
    if (remaining <= 0) throw target.timedOut(value, timeout);
    // The server held the request until it changed or its wait ran out: ask again now.
    if (waitS > 0 && appliedWait(answer.headers)) continue;
    interval = changed ? pollInterval : Math.min(interval * TIMINGS.pollBackoffFactor, Math.max(pollInterval, TIMINGS.maxPollIntervalMs));
    await deps.sleep(Math.min(interval, remaining), signal);
  }
}

/** The `Prefer: wait` to ask for: within the time left and well within one attempt's timeout; 0 for none. */
function preferWaitSeconds(remainingMs: number, attemptTimeoutMs: number): number {
  const ms = Math.min(remainingMs, attemptTimeoutMs - TIMINGS.preferWaitMarginMs, TIMINGS.maxPreferWaitS * 1000);
  return Math.max(0, Math.floor(ms / 1000));
}

/** Whether the server says it honoured `wait` (RFC 7240 `Preference-Applied`). */
function appliedWait(headers: Headers): boolean {
  return /(?:^|[\s,;])wait(?:=|\s*$|[\s,;])/i.test(headers.get("preference-applied") ?? "");
}

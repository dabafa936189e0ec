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
    const { timeout = TIMINGS.waitTimeoutMs, pollInterval = TIMINGS.pollIntervalMs, onProgress, signal } = options;
    const path = jobPath(jobId);
    const deadline = deps.now() + timeout;
    let interval = pollInterval;
    let last: SdkJob | undefined;
    for (;;) {
      const waitS = preferWaitSeconds(deadline - deps.now(), deps.timeout);
      const answer = await deps.request<HttpJob>({
        method: "GET",
        path,
        ...(waitS > 0 ? { headers: { Prefer: `wait=${waitS}` } } : {}),
        signal,
      });
      const job = toSdkJob(answer.data);
      const changed = last === undefined || job.status !== last.status || job.progress !== last.progress;
      last = job;
      onProgress?.(job);
      if (FINAL_STATUSES.has(job.status)) return job;
      const remaining = deadline - deps.now();
      if (remaining <= 0) {
        throw new TimeoutError(`Timeout: job ${jobId} is still ${job.status} after ${timeout} ms of waiting`, jobId, job);
      }
      // The server held the request until the job changed or its wait ran out: ask again now.
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

// Waiting without polling from the client. `Prefer: wait=N` on GET /v1/jobs/:id (in the manner of RFC 7240 and Replicate): the
// request is held until the job is final or N seconds pass (capped at
// TUNABLES.wait.maxS), then answered with the job either way and
// `Preference-Applied: wait=<seconds applied>`. GET /v1/jobs/:id/events streams the
// same reads as server-sent events. The read limit counts each once.
import { FINAL_STATUSES } from "../contract/job.ts";
import type { JobStatus } from "../contract/job.ts";
import { TUNABLES } from "../lib/tunables.ts";

/** The wait asked for in a Prefer header, in whole seconds, capped; undefined if none. */
export function preferredWaitS(prefer: string | undefined): number | undefined {
  if (!prefer) return undefined;
  for (const part of prefer.split(",")) {
    const match = /^\s*wait\s*=\s*"?(\d{1,6})"?\s*(;.*)?$/i.exec(part);
    if (match) return Math.min(Number(match[1]), TUNABLES.wait.maxS);
  }
  return undefined;
}

/**
 * Reads the job until it is final or the wait is over; returns the last read (undefined
 * once the job is gone). Reads back off from checkFirstMs to checkMaxMs.
 */
export async function holdUntilFinal<T extends { status: JobStatus }>(
  read: () => Promise<T | undefined>,
  waitS: number,
  signal?: AbortSignal,
  onRead?: (row: T) => Promise<void>,
): Promise<T | undefined> {
  const deadline = Date.now() + waitS * 1000;
  let delay: number = TUNABLES.wait.checkFirstMs;
  for (;;) {
    const row = await read();
    if (row && onRead) await onRead(row);
    if (!row || FINAL_STATUSES.includes(row.status)) return row;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return row;
    await new Promise((done) => setTimeout(done, Math.min(delay, left)));
    delay = Math.min(delay * 2, TUNABLES.wait.checkMaxMs);
  }
}

// Waiting without polling from the client. `Prefer: wait=N` on GET /v1/jobs/:id (in the manner of RFC 7240 and Replicate): the
// request is held until the job is final or N seconds pass (capped at
// TUNABLES.wait.maxS), then answered with the job either way and
// `Preference-Applied: wait=<seconds applied>`. GET /v1/jobs/:id/events streams the
// same reads as server-sent events. The read limit counts each once. Both re-check their
// API key as they go (keyWatch): a key revoked meanwhile ends them with 401 or an `error`
// event, and nothing of the job is sent after it.
import { FINAL_STATUSES } from "../contract/job.ts";
import type { JobStatus } from "../contract/job.ts";
import { unauthorized } from "../lib/errors.ts";
import { TUNABLES, type Tunables } from "../lib/tunables.ts";

/** The wait asked for in a Prefer header, in whole seconds, capped; undefined if none. */
export function preferredWaitS(prefer: string | undefined): number | undefined {
  if (!prefer) return undefined;
  for (const part of prefer.split(",")) {
    const match = /^\s*wait\s*=\s*"?(\d{1,6})"?\s*(;.*)?$/i.exec(part);
    if (match) return Math.min(Number(match[1]), TUNABLES.wait.maxS);
  }
  return undefined;
}

/** What holdUntilFinal takes besides the read. */
export interface HoldOptions<T> {
  waitS: number;
  signal?: AbortSignal;
  /** Called with each read before the next one (the event stream sends it). */
  onRead?: (row: T) => Promise<void>;
  /** Called before each read; throws to end the hold (keyWatch's `due`). */
  beforeRead?: () => Promise<void>;
  /** TUNABLES.wait, or a test's TUNABLES_OVERRIDE (tunablesFor). */
  timing?: Pick<Tunables["wait"], "checkFirstMs" | "checkMaxMs">;
}

/**
 * Reads the job until it is final or the wait is over; returns the last read (undefined
 * once the job is gone). Reads back off from checkFirstMs to checkMaxMs.
 */
export async function holdUntilFinal<T extends { status: JobStatus }>(read: () => Promise<T | undefined>, options: HoldOptions<T>): Promise<T | undefined> {
  const { waitS, signal, onRead, beforeRead, timing = TUNABLES.wait } = options;
  const deadline = Date.now() + waitS * 1000;
  let delay: number = timing.checkFirstMs;
  for (;;) {
    await beforeRead?.();
    const row = await read();
    if (row && onRead) await onRead(row);
    if (!row || FINAL_STATUSES.includes(row.status)) return row;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return row;
    await new Promise((done) => setTimeout(done, Math.min(delay, left)));
    delay = Math.min(delay * 2, timing.checkMaxMs);
  }
}

/** The answer to a key found revoked while its request was open: the API key middleware's own. */
export const revokedKey = () => unauthorized("unknown or revoked API key");

/**
 * Re-checks a held request's API key: `due()` asks `isActive` when `everyMs` passed since the
 * last check, `now()` always (before anything of the job is sent); both throw revokedKey()
 * once the key is no longer active. The key was checked when the request came in.
 */
export function keyWatch(isActive: () => Promise<boolean>, everyMs: number) {
  let checkedAt = Date.now();
  const now = async () => {
    if (!(await isActive())) throw revokedKey();
    checkedAt = Date.now();
  };
  return {
    now,
    due: async () => {
      if (Date.now() - checkedAt >= everyMs) await now();
    },
  };
}

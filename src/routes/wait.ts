// Waiting without polling from the client, for a job and a workflow alike (readPreferringWait,
// streamUntilFinal). `Prefer: wait=N` on GET /v1/jobs/:id (in the manner of RFC 7240 and Replicate): the
// request is held until the job is final or N seconds pass (capped at
// TUNABLES.wait.maxS), then answered with the job either way and
// `Preference-Applied: wait=<seconds applied>`. GET /v1/jobs/:id/events streams the
// same reads as server-sent events. The read limit counts each once. Both re-check their
// API key as they go (keyWatch): a key revoked meanwhile ends them with 401 or an `error`
// event, and nothing of the job is sent after it.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { FINAL_STATUSES } from "../contract/job.ts";
import type { JobStatus } from "../contract/job.ts";
import { database } from "../db/client.ts";
import { isKeyActive } from "../db/orgs.ts";
import { AppError, errorBody, unauthorized } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { TUNABLES, tunablesFor, type Tunables } from "../lib/tunables.ts";

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

/** A request past the API key middleware (its org, mode and key id are in ContextVariableMap). */
type KeyedContext = Context<{ Bindings: Env }>;

/**
 * GET of one job or workflow: `read` once, or with `Prefer: wait=N` held until it is final or
 * N seconds passed, its key re-checked as it goes and once more before the answer (a key
 * revoked meanwhile gets 401); says the wait applied. Undefined when there is none.
 */
export async function readPreferringWait<T extends { status: JobStatus }>(c: KeyedContext, read: () => Promise<T | undefined>): Promise<T | undefined> {
  const waitS = preferredWaitS(c.req.header("prefer"));
  if (waitS === undefined) return read();
  const wait = tunablesFor(c.env).wait;
  const key = keyWatch(() => isKeyActive(database(c.env.DB), c.get("apiKeyId")), wait.keyCheckMs);
  const value = await holdUntilFinal(read, { waitS, signal: c.req.raw.signal, beforeRead: key.due, timing: wait });
  await key.now();
  if (value) {
    c.header("preference-applied", `wait=${waitS}`);
    c.header("vary", "Prefer");
  }
  return value;
}

export interface StreamEvent {
  event: string;
  data: unknown;
}

/**
 * GET …/events of one job or workflow: reads as holdUntilFinal does for wait.maxS (an
 * EventSource reconnects by itself), sending what `eventsOf` makes of each read; the key is
 * re-checked every wait.keyCheckMs and before anything goes out, and a key revoked meanwhile
 * ends the stream with one `error` event in the API's error shape. `subject` names it in the log.
 */
export function streamUntilFinal<T extends { status: JobStatus }>(
  c: KeyedContext,
  read: () => Promise<T | undefined>,
  eventsOf: (value: T) => Promise<StreamEvent[]> | StreamEvent[],
  subject: Record<string, string>,
): Response {
  const wait = tunablesFor(c.env).wait;
  const key = keyWatch(() => isKeyActive(database(c.env.DB), c.get("apiKeyId")), wait.keyCheckMs);
  return streamSSE(c, async (stream) => {
    const send = async (value: T) => {
      const events = await eventsOf(value);
      if (events.length === 0) return;
      // Nothing goes out on a key revoked since the last check.
      await key.now();
      for (const { event, data } of events) await stream.writeSSE({ event, data: JSON.stringify(data) });
    };
    try {
      await holdUntilFinal(read, { waitS: wait.maxS, signal: c.req.raw.signal, onRead: send, beforeRead: key.due, timing: wait });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      log("info", "event stream ended: its API key was revoked", { ...subject, key: c.get("apiKeyId") });
      await stream.writeSSE({ event: "error", data: JSON.stringify(errorBody(error.code, error.message, error.details, c.get("requestId"))) });
    }
  });
}

// An attempt's credentials: the random token its runner makes when it begins (kept in the
// Attempt, in the runner's storage, and sent in its start's callback), and the check of
// what a request of the processor presents against the attempt the runner holds: its
// token, in constant time, and in production the container it came from (docs/security.md).
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { base64url, timingSafeEqualText } from "../lib/crypto.ts";
import type { Attempt } from "./attempt.ts";

/** 32 random bytes, base64url (43 characters): an attempt's token. */
export function newAttemptToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** What a request of the processor presents: the bearer token, and the container that sent it (production only). */
export interface Presented {
  token: string | undefined;
  /** The sending container's Durable Object id (the outbound handler's ctx.containerId); undefined for the local route. */
  sender: string | undefined;
}

/** What the runner makes of a request for an attempt: it holds it and the credentials are its own, or why not. */
export type AttemptCheck = "held" | "not held" | "wrong token" | "wrong sender";

/**
 * Whether a request for attempt `pid` comes with `current`'s credentials: its token
 * (constant time) and, when `expectedSender` is known (containers), from the container of
 * its seat. "not held" when `current` is not attempt `pid`: its token is not checked then.
 */
export async function checkPresented(current: Attempt | undefined, pid: string, presented: Presented, expectedSender: string | undefined): Promise<AttemptCheck> {
  if (current?.pid !== pid) return "not held";
  if (!current.token || !presented.token || !(await timingSafeEqualText(presented.token, current.token))) return "wrong token";
  if (expectedSender !== undefined && !(presented.sender !== undefined && (await timingSafeEqualText(presented.sender, expectedSender)))) return "wrong sender";
  return "held";
}

/** The job an attempt id `<jobId>.<attempt>` belongs to, and the attempt's number; undefined for anything else. */
export function parseAttemptId(pid: string): { jobId: string; attempt: number } | undefined {
  const match = /^(.+)\.([1-9]\d{0,5})$/.exec(pid);
  return match ? { jobId: match[1]!, attempt: Number(match[2]) } : undefined;
}

/**
 * The first check of a request of the processor, before anything is answered about the
 * attempt, its job or the protocol, and before any Durable Object is asked (a runner is
 * made by the first call to its name): a bearer token of an attempt token's form, for an
 * attempt that was begun (its job's row in D1 is at that attempt or later). What passes is
 * then checked by the job's runner, which holds the token (checkPresented, constant time).
 */
export async function attemptMayBeAsked(env: Env, pid: string, presented: Presented): Promise<boolean> {
  if (!presented.token) return false;
  const parsed = parseAttemptId(pid);
  if (!parsed) return false;
  const job = await findJob(database(env.DB), parsed.jobId);
  return job !== undefined && job.attempt >= parsed.attempt;
}

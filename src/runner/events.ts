// Events the processor pushes while an attempt runs (src/contract/processor-protocol.ts):
// progress, heartbeats, and the final state once the tools finished and the outputs are
// stored (src/runner/output-upload.ts: same token, same hosts). Each attempt has
// its own random token, made by its runner and kept in its state (src/runner/credentials.ts);
// an event is handed to the job's runner, which takes it only for the attempt it holds,
// with that attempt's token (constant time) and, in production, from the container of the
// attempt's seat. No secret of the Worker's is involved, so rotating one changes nothing
// for running attempts. Locally the callback is this Worker's route under PUBLIC_BASE_URL
// (no sender is known there: the token alone decides); in production the container's
// outbound requests to CALLBACK_HOST are handled by the ProcessorContainer
// (src/runner/container.ts) without leaving Cloudflare (docs/security.md).
import {
  ATTEMPT_TOKEN,
  describeIssues,
  PROCESSOR_EVENTS_PATH,
  PROCESSOR_INPUTS_PATH,
  PROCESSOR_OUTPUTS_PATH,
  PROCESSOR_PROTOCOL_VERSION,
  processorJobState,
  PROTOCOL_HEADER,
  protocolMismatchBody,
  protocolVersionOf,
  speaksOurProtocol,
  type ProcessorJobRequest,
} from "../contract/processor-protocol.ts";
import { log } from "../lib/log.ts";
import type { Attempt } from "./attempt.ts";
import { attemptMayBeAsked, type AttemptCheck, type Presented } from "./credentials.ts";

/** The host the container's events are addressed to; only the ProcessorContainer's outbound handler answers it. */
export const CALLBACK_HOST = "runner.media-jobs.internal";

/** An event is a job state: a few hundred bytes, a completed job's result a few KB. */
const MAX_EVENT_BYTES = 256 * 1024;

/** The origin the processor reaches this Worker at: PUBLIC_BASE_URL for a local processor, CALLBACK_HOST in a container. */
function callbackOrigin(env: Env): string {
  return env.PROCESSOR_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, "") : `http://${CALLBACK_HOST}`;
}

/** The URL the processor pushes events to; /healthz/processor has the processor check it (container/src/push-path.ts). */
export function processorEventsUrl(env: Env): string {
  return `${callbackOrigin(env)}${PROCESSOR_EVENTS_PATH}`;
}

/**
 * The callback an attempt's start request carries: where its events and its outputs go,
 * where its uploaded input is read (`withInput`), and its token.
 */
export function callbackFor(env: Env, attempt: Pick<Attempt, "pid" | "token">, withInput: boolean): ProcessorJobRequest["callback"] {
  const origin = callbackOrigin(env);
  const pid = encodeURIComponent(attempt.pid);
  return {
    url: processorEventsUrl(env),
    token: attempt.token,
    outputs: `${origin}${PROCESSOR_OUTPUTS_PATH}/${pid}`,
    ...(withInput ? { input: `${origin}${PROCESSOR_INPUTS_PATH}/${pid}` } : {}),
  };
}

/** What a request of the processor presents: its bearer token, and `sender`, the container that sent it (undefined on the local route). */
export function presentedBy(request: Request, sender: string | undefined): Presented {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  return { token: bearer && ATTEMPT_TOKEN.test(bearer) ? bearer : undefined, sender };
}

/** The answer to a request the runner did not take: 401 for wrong credentials (logged by the runner), 409 for an attempt it no longer holds. */
export function refusal(check: Exclude<AttemptCheck, "held">, pid: string): Response {
  if (check !== "not held") return unauthenticated();
  return new Response(`the runner no longer holds attempt ${pid}`, { status: 409, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/**
 * The one answer to a request of the processor whose credentials did not pass: 401, the same
 * whatever failed (no token, a made-up one, an attempt that never began, another attempt's
 * token), naming nothing of the attempt, its job or the protocol.
 */
export function unauthenticated(): Response {
  return new Response("missing or wrong attempt credentials", { status: 401, headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" } });
}

/**
 * The first check of every request of the processor (credentials.ts attemptMayBeAsked): a
 * 401 (logged as a warning: anyone can send one) when it fails, undefined when it passes and
 * the job's runner may be asked.
 */
export async function refuseUnknownCaller(env: Env, request: Request, pid: string, presented: Presented): Promise<Response | undefined> {
  if (await attemptMayBeAsked(env, pid, presented)) return undefined;
  log("warn", "processor request refused: no credentials of a begun attempt", { path: new URL(request.url).pathname, token: presented.token ? "present" : "missing" });
  return unauthenticated();
}

/**
 * A 409 protocolMismatch answer (logged, naming both versions) when a request of the
 * processor names another protocol version than this Worker's; undefined when it names ours.
 * Asked only once the request's credentials are the attempt's: versions are named to no one else.
 */
export function refuseOtherProtocol(request: Request, what: string): Response | undefined {
  const processor = protocolVersionOf(request.headers.get(PROTOCOL_HEADER));
  if (speaksOurProtocol(processor)) return undefined;
  const versions = { processor, worker: PROCESSOR_PROTOCOL_VERSION };
  log("error", `processor ${what} refused: it speaks another protocol version`, { path: new URL(request.url).pathname, ...versions });
  return Response.json(protocolMismatchBody(versions), { status: 409 });
}

/** The job an attempt id `<jobId>.<attempt>` belongs to. */
export function jobOfAttempt(pid: string): string | undefined {
  const dot = pid.lastIndexOf(".");
  return dot > 0 ? pid.slice(0, dot) : undefined;
}

/**
 * Checks a pushed event and hands it to its job's runner. Credentials first: 401 (and no
 * runner asked) unless it carries a token for an attempt that was begun, 401 too when the
 * runner finds the token or the sender is not the attempt's; only then 409 when the runner
 * does not hold the attempt (the processor stops pushing it) or the processor speaks another
 * protocol version (a protocolMismatch body), 204 when the runner took it. 400 when the body
 * is not a job state (it names the attempt, so it is read first). `sender`: the container
 * that sent it (ProcessorContainer's outbound handler), undefined on the local route.
 */
export async function receiveProcessorEvent(env: Env, request: Request, sender?: string): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const presented = presentedBy(request, sender);
  if (!presented.token) return (await refuseUnknownCaller(env, request, "", presented))!;
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_EVENT_BYTES) return new Response("event too large", { status: 413 });
  const text = await request.text();
  if (text.length > MAX_EVENT_BYTES) return new Response("event too large", { status: 413 });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response("body must be a processor job state (JSON)", { status: 400 });
  }
  const parsed = processorJobState.safeParse(body);
  const jobId = parsed.success ? jobOfAttempt(parsed.data.id) : undefined;
  if (!parsed.success || !jobId) {
    const problem = parsed.success ? `id ${JSON.stringify(parsed.data.id)} is not an attempt id <job id>.<attempt>` : describeIssues(parsed.error);
    log("warn", "processor event refused: not a job state", { problem });
    return new Response(`body must be a processor job state {id, state, …}: ${problem}`, { status: 400 });
  }
  const state = parsed.data;
  const unknown = await refuseUnknownCaller(env, request, state.id, presented);
  if (unknown) return unknown;
  const runner = env.JOB_RUNNER.getByName(jobId);
  // Another protocol's event is not handed over; whether its sender gets to learn that is the runner's to say.
  if (refusesOurProtocol(request)) {
    const check = await runner.holdsAttempt(state.id, presented);
    return check === "held" ? refuseOtherProtocol(request, "event")! : refusal(check, state.id);
  }
  const check = await runner.event(state, presented);
  return check === "held" ? new Response(null, { status: 204 }) : refusal(check, state.id);
}

/** Whether a request of the processor names another protocol version than this Worker's (refuseOtherProtocol answers it). */
function refusesOurProtocol(request: Request): boolean {
  return !speaksOurProtocol(protocolVersionOf(request.headers.get(PROTOCOL_HEADER)));
}

// Events the processor pushes while an attempt runs (src/contract/processor-protocol.ts):
// progress, heartbeats, and the final state once the tools finished and the outputs are
// stored (src/runner/output-upload.ts: same token, same hosts). Each attempt has
// its own callback token, HMAC-SHA256 of its id under PROCESSOR_TOKEN, checked in constant
// time; an event is handed to the job's runner, which keeps only those of the attempt it
// holds. Locally the callback is this Worker's route under PUBLIC_BASE_URL; in production
// the container's outbound requests to CALLBACK_HOST are handled by the ProcessorContainer
// (src/runner/container.ts) without leaving Cloudflare.
import {
  describeIssues,
  PROCESSOR_EVENTS_PATH,
  PROCESSOR_OUTPUTS_PATH,
  PROCESSOR_PROTOCOL_VERSION,
  processorJobState,
  PROTOCOL_HEADER,
  protocolMismatchBody,
  protocolVersionOf,
  speaksOurProtocol,
  type ProcessorJobRequest,
} from "../contract/processor-protocol.ts";
import { base64url, fromBase64url, hmacSha256, verifyHmacSha256 } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";

/** The host the container's events are addressed to; only the ProcessorContainer's outbound handler answers it. */
export const CALLBACK_HOST = "runner.media-jobs.internal";

/** An event is a job state: a few hundred bytes, a completed job's result a few KB. */
const MAX_EVENT_BYTES = 256 * 1024;

const tokenMessage = (pid: string) => `processor-events:${pid}`;

/** Where the processor reaches this Worker: its public origin locally, the container's outbound host in production. */
function callbackOrigin(env: Env): string {
  return env.PROCESSOR_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, "") : `http://${CALLBACK_HOST}`;
}

/** The URL the processor pushes events to; /healthz/processor has the processor check it (container/src/push-path.ts). */
export function processorEventsUrl(env: Env): string {
  return `${callbackOrigin(env)}${PROCESSOR_EVENTS_PATH}`;
}

/** The callback an attempt's start request carries: where its events and its outputs go, and its token. */
export async function callbackFor(env: Env, pid: string): Promise<NonNullable<ProcessorJobRequest["callback"]>> {
  const origin = callbackOrigin(env);
  return {
    url: `${origin}${PROCESSOR_EVENTS_PATH}`,
    token: base64url(await hmacSha256(env.PROCESSOR_TOKEN, tokenMessage(pid))),
    outputs: `${origin}${PROCESSOR_OUTPUTS_PATH}/${encodeURIComponent(pid)}`,
  };
}

/** Whether the request's bearer token is attempt `pid`'s own (constant time); logged when not. */
export async function hasAttemptToken(env: Env, request: Request, pid: string): Promise<boolean> {
  const token = /^Bearer ([A-Za-z0-9_-]{43})$/.exec(request.headers.get("authorization") ?? "")?.[1];
  if (token && (await verifyHmacSha256(env.PROCESSOR_TOKEN, tokenMessage(pid), fromBase64url(token)))) return true;
  log("warn", "processor request with a wrong token", { attempt: pid, path: new URL(request.url).pathname });
  return false;
}

/**
 * A 409 protocolMismatch answer (logged, naming both versions) when a request of the
 * processor names another protocol version than this Worker's; undefined when it names ours.
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
 * Checks a pushed event and hands it to its job's runner: 204 when the runner holds the
 * attempt, 409 when it does not (the processor stops pushing it) or when the processor
 * speaks another protocol version (a protocolMismatch body), 401/400 when the token or
 * the body is wrong.
 */
export async function receiveProcessorEvent(env: Env, request: Request): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405 });
  if (!env.PROCESSOR_TOKEN) return new Response("processor token not configured", { status: 503 });
  const mismatch = refuseOtherProtocol(request, "event");
  if (mismatch) return mismatch;
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
  if (!(await hasAttemptToken(env, request, state.id))) return new Response("wrong token for this attempt", { status: 401 });
  const held = await env.JOB_RUNNER.getByName(jobId).event(state);
  return new Response(null, { status: held ? 204 : 409 });
}

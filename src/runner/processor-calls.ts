// The JobRunner's calls to the processor that holds an attempt (the protocol is in
// src/contract/processor-protocol.ts; how the processor is reached, src/runner/transport.ts).
// They report what the processor answered, each answer parsed with the protocol's schema
// and its version checked; the runner decides what follows.
import {
  describeIssues,
  PROCESSOR_PROTOCOL_VERSION,
  processorDraining,
  processorJobState,
  PROTOCOL_HEADER,
  protocolMismatch,
  protocolVersionOf,
  otherUploads,
  readsThroughRunner,
  speaksOurProtocol,
  type ProcessorJobRequest,
  type ProcessorJobState,
} from "../contract/processor-protocol.ts";
import type { FanoutOffer } from "../contract/fanout.ts";
import type { JobParams, JobType } from "../contract/registry.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../lib/log.ts";
import type { Attempt } from "./attempt.ts";
import { callbackFor } from "./events.ts";
import { processorFetch } from "./transport.ts";

const attemptPath = (current: Attempt) => `/jobs/${encodeURIComponent(current.pid)}`;

/**
 * The processor answered in a way this Worker cannot take: another protocol version
 * (`versions`), or a body the protocol's schema refuses. Thrown from the calls below, and
 * taken like a processor that could not be reached (the call failed).
 */
export class ProcessorAnswerError extends Error {
  readonly versions?: { processor: number | null; worker: number };
  constructor(message: string, versions?: { processor: number | null; worker: number }) {
    super(message);
    this.name = "ProcessorAnswerError";
    this.versions = versions;
  }
}

/** The processor refused a start with 503 draining: it is shutting down; the attempt goes to another instance. */
export class ProcessorDrainingError extends Error {
  constructor(instance: string) {
    super(`processor ${instance} is draining and starts no new job`);
    this.name = "ProcessorDrainingError";
  }
}

/**
 * Why a failed start means a processor that will not run the attempt: going away (503
 * draining), or of another protocol version (an old container during a rollout, already
 * logged naming both versions). Undefined for any other failure, a failed call: an answer
 * naming no version at all (a proxy's 502, a wrong PROCESSOR_URL) is no processor's.
 */
export function startRefusedBecause(error: unknown): "draining" | "another protocol version" | undefined {
  if (error instanceof ProcessorDrainingError) return "draining";
  const version = error instanceof ProcessorAnswerError ? error.versions?.processor : undefined;
  return version !== undefined && version !== null ? "another protocol version" : undefined;
}

/**
 * Starts the attempt on its processor, with the callback its events go to (carrying the
 * attempt's token, and where an uploaded input is read); throws when it was not accepted
 * (ProcessorDrainingError when draining).
 */
export async function startOnProcessor(env: Env, current: Attempt, job: Pick<JobRow, "type" | "params" | "part">, fanout?: FanoutOffer): Promise<ProcessorJobState> {
  // A stitch reads its parts through the runner (docs/fanout.md), whatever the job's input.
  const throughRunner = job.part?.role === "stitch" || readsThroughRunner((job.params as { url: string }).url) || otherUploads(job.params).length > 0;
  const request: ProcessorJobRequest = {
    id: current.pid,
    type: job.type as JobType,
    params: job.params as JobParams,
    callback: callbackFor(env, current, throughRunner),
    ...(fanout ? { fanout } : {}),
    ...(job.part ? { part: job.part } : {}),
  };
  const response = await processorFetch(env, current.instance, current.token)("/jobs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  await checkVersion(current, "start", response);
  if (response.status === 503 && processorDraining.safeParse(await response.clone().json().catch(() => undefined)).success) {
    await response.body?.cancel();
    throw new ProcessorDrainingError(current.instance);
  }
  if (!response.ok) throw new Error(`processor answered ${response.status} to start: ${await response.text()}`);
  return parseState(current, "start", response);
}

/** The attempt's state on its processor: "unknown" when the processor does not have it, "no answer" when the call failed or its answer could not be taken. */
export async function askProcessor(env: Env, current: Attempt): Promise<ProcessorJobState | "unknown" | "no answer"> {
  try {
    const response = await processorFetch(env, current.instance, current.token)(attemptPath(current));
    await checkVersion(current, "state", response);
    if (response.status === 404) return "unknown";
    if (!response.ok) return "no answer";
    return await parseState(current, "state", response);
  } catch {
    return "no answer";
  }
}

/** Cancels (when asked to) and deletes the attempt on its processor. Best effort: a processor that is gone has nothing left to release. */
export async function releaseOnProcessor(env: Env, current: Attempt, how: "cancel" | "delete"): Promise<void> {
  const call = processorFetch(env, current.instance, current.token);
  try {
    if (how === "cancel") await call(`${attemptPath(current)}/cancel`, { method: "POST" });
    await call(attemptPath(current), { method: "DELETE" });
  } catch {
    // Unreachable processor: its own TTL sweep removes the files.
  }
}

/**
 * Throws (and logs, naming both versions) when the processor speaks another protocol
 * version: its answer says so in PROTOCOL_HEADER, or in a 409 protocolMismatch body when
 * it refused our request (the processor that refused names its version in both).
 */
async function checkVersion(current: Attempt, call: string, response: Response): Promise<void> {
  const processor = protocolVersionOf(response.headers.get(PROTOCOL_HEADER));
  let refused = false;
  if (response.status === 409) refused = protocolMismatch.safeParse(await response.clone().json().catch(() => undefined)).success;
  if (speaksOurProtocol(processor) && !refused) return;
  const versions = { processor, worker: PROCESSOR_PROTOCOL_VERSION };
  // A refused start goes to another instance (JobRunner #startRefused); any other call counts as failed.
  const then = call === "start" ? "the start goes to another instance" : "the call counts as failed";
  log("error", `the processor speaks another protocol version; ${then}`, { job: current.jobId, attempt: current.attempt, call, status: response.status, ...versions });
  await response.body?.cancel();
  throw new ProcessorAnswerError(`processor protocol ${processor ?? "none"}, Worker protocol ${PROCESSOR_PROTOCOL_VERSION} (${call}: HTTP ${response.status})`, versions);
}

/** The answer's body as a job state of this attempt; throws (and logs what was wrong) when it is not one. */
async function parseState(current: Attempt, call: string, response: Response): Promise<ProcessorJobState> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = processorJobState.safeParse(body);
  if (parsed.success && parsed.data.id === current.pid) return parsed.data;
  const problem = parsed.success ? `id ${JSON.stringify(parsed.data.id)} is not attempt ${current.pid}` : describeIssues(parsed.error);
  log("error", "the processor's answer is not a job state; the call counts as failed", { job: current.jobId, attempt: current.attempt, call, problem, body: text.slice(0, 500) });
  throw new ProcessorAnswerError(`processor's answer to ${call} is not a job state: ${problem}`);
}

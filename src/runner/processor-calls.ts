// The JobRunner's calls to the processor that holds an attempt (the protocol is in
// src/contract/processor-protocol.ts; how the processor is reached, src/runner/transport.ts).
// They report what the processor answered; the runner decides what follows.
import type { ProcessorJobRequest, ProcessorJobState } from "../contract/processor-protocol.ts";
import type { JobParams, JobType } from "../contract/registry.ts";
import { uploadRefId } from "../contract/uploads.ts";
import type { JobRow } from "../db/schema.ts";
import { uploadInputLink } from "../files/uploads.ts";
import type { Attempt } from "./attempt.ts";
import { callbackFor } from "./events.ts";
import { processorFetch } from "./transport.ts";

const attemptPath = (current: Attempt) => `/jobs/${encodeURIComponent(current.pid)}`;

/** Starts the attempt on its processor, with the callback its events go to; throws when it was not accepted. */
export async function startOnProcessor(env: Env, current: Attempt, job: Pick<JobRow, "type" | "params">): Promise<ProcessorJobState> {
  const upload = uploadRefId((job.params as { url: string }).url);
  const request: ProcessorJobRequest = {
    id: current.pid,
    type: job.type as JobType,
    params: job.params as JobParams,
    callback: await callbackFor(env, current.pid),
    ...(upload ? { inputUrl: await uploadInputLink(env, upload, Date.now()) } : {}),
  };
  const response = await processorFetch(env, current.instance)("/jobs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  if (!response.ok) throw new Error(`processor answered ${response.status} to start: ${await response.text()}`);
  return (await response.json()) as ProcessorJobState;
}

/** The attempt's state on its processor: "unknown" when the processor does not have it, "no answer" when the call failed. */
export async function askProcessor(env: Env, current: Attempt): Promise<ProcessorJobState | "unknown" | "no answer"> {
  let response: Response;
  try {
    response = await processorFetch(env, current.instance)(attemptPath(current));
  } catch {
    return "no answer";
  }
  if (response.status === 404) return "unknown";
  if (!response.ok) return "no answer";
  return (await response.json()) as ProcessorJobState;
}

/** Cancels (when asked to) and deletes the attempt on its processor. Best effort: a processor that is gone has nothing left to release. */
export async function releaseOnProcessor(env: Env, current: Attempt, how: "cancel" | "delete"): Promise<void> {
  const call = processorFetch(env, current.instance);
  try {
    if (how === "cancel") await call(`${attemptPath(current)}/cancel`, { method: "POST" });
    await call(attemptPath(current), { method: "DELETE" });
  } catch {
    // Unreachable processor: its own TTL sweep removes the files.
  }
}

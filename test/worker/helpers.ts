// Helpers for Worker tests: calls into the Worker under test, keys made through the
// admin API, and polling with a deadline (never a fixed sleep).
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";
import { database } from "../../src/db/client.ts";
import { insertJob } from "../../src/db/jobs.ts";
import type { jobs } from "../../src/db/schema.ts";
import { newId } from "../../src/lib/crypto.ts";
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_EVENTS_PATH, PROCESSOR_OUTPUTS_PATH, PROCESSOR_PLAYABLE_PATH, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import type { JobRunner, RunnerState } from "../../src/runner/job-runner.ts";
import { STATE_KEY } from "../../src/runner/state.ts";

export const testEnv = env as unknown as Env & { MEDIA_URL: string; PROCESSOR_URL: string };

export const media = (path: string) => `${testEnv.MEDIA_URL}${path}`;

/** The header a processor (or the Worker) of this protocol version sends with every request of the protocol. */
export const protocolHeader = { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };

export async function call(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("authorization", `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    headers.set("content-type", "application/json");
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const response = await exports.default.fetch(new Request(`http://127.0.0.1:8787${path}`, { method, headers, body }));
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A raw request to the Worker under test (for downloads). */
export function workerFetch(url: string, init?: RequestInit): Promise<Response> {
  // A link under this file's scope of the relay (test/worker/relay-pump.ts) is the Worker's own path.
  return exports.default.fetch(new Request(url.replace(/\/__scope\/[A-Za-z0-9_-]+\//, "/"), init));
}

/** A live compress-image job of the org written straight to D1 (nothing runs it); `fields` override the defaults. */
export function storedJob(orgId: string, fields: Partial<typeof jobs.$inferInsert> & Pick<typeof jobs.$inferInsert, "status">) {
  return insertJob(database(testEnv.DB), {
    id: newId("job"),
    orgId,
    mode: "live",
    type: "compressImage",
    priority: 5,
    params: { url: media("/image") },
    createdAt: Date.now() - 1000,
    ...fields,
  });
}

let orgCounter = 0;

/** A fresh organization (unique per call) and a key for it. */
export async function newKey(options: { plan?: string; test?: boolean; org?: string } = {}) {
  const org = options.org ?? `org-${Date.now().toString(36)}-${++orgCounter}`;
  const created = await call("POST", "/admin/keys", {
    headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` },
    // A new organization defaults to pro here; an existing one keeps its plan unless one is given.
    body: { org, plan: options.plan ?? (options.org ? undefined : "pro"), mode: options.test ? "test" : "live" },
  });
  if (created.status !== 201) throw new Error(`admin create-key failed: ${created.status} ${created.text}`);
  return { key: created.json.key as string, id: created.json.id as string, org, orgId: created.json.org.id as string };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the media server saw of a tag's downloads (test/support/global-setup.ts, downloadRecord). */
export interface Downloads {
  running: number;
  max: number;
  starts: { at: number; label: string }[];
  ends: { at: number; label: string }[];
  /** Labels of the gated downloads still held, oldest first. */
  held: string[];
}

export const downloads = async (tag: string): Promise<Downloads> => (await fetch(media(`/timings?tag=${encodeURIComponent(tag)}`))).json();

/** An input the media server holds until `release(tag, label)`: the test decides when its download ends. */
export const gated = (tag: string, label: string) => media(`/gate?tag=${encodeURIComponent(tag)}&label=${encodeURIComponent(label)}`);

/** Ends the held download `label` of `tag` (every held one, without a label); returns the labels released. */
export async function release(tag: string, label?: string): Promise<string[]> {
  const query = `tag=${encodeURIComponent(tag)}${label === undefined ? "" : `&label=${encodeURIComponent(label)}`}`;
  return ((await (await fetch(media(`/release?${query}`), { method: "POST" })).json()) as { released: string[] }).released;
}

/**
 * Runs `count` gated downloads of `tag` to their end one at a time, as `seats` seats allow:
 * each round waits until as many are held as seats can take (every seat filled, or every
 * download left), calls `observe` (for the caller's own checks of who holds what), then
 * releases the oldest held one. So the downloads overlap exactly as the code under test
 * seats them, whatever the machine's speed.
 */
export async function releaseInTurn(tag: string, count: number, seats: number, observe: (seen: Downloads) => Promise<void> | void = () => undefined) {
  for (;;) {
    const seen = await downloads(tag);
    if (seen.ends.length === count) return seen;
    const expected = Math.min(seats, count - seen.ends.length);
    const full = await waitFor(async () => {
      const now = await downloads(tag);
      return now.held.length >= expected ? now : undefined;
    }, `${expected} downloads of ${tag} to be held (${seen.ends.length} of ${count} ended)`, 60_000);
    await observe(full);
    await release(tag, full.held[0]);
  }
}

/** Polls GET /v1/jobs/:id until the job is in one of `statuses`; returns every status seen. */
export async function waitForJob(key: string, id: string, statuses: string[] = ["completed", "failed", "cancelled"], deadlineMs = 30_000) {
  const seen: any[] = [];
  const job = await waitFor(
    async () => {
      const res = await call("GET", `/v1/jobs/${id}`, { key });
      seen.push(res.json);
      return statuses.includes(res.json?.status) ? res.json : undefined;
    },
    `job ${id} to reach ${statuses.join("/")}`,
    deadlineMs,
  );
  return { job, seen };
}

/** Attempt tokens seen in the runners' states, by attempt id: still known once a runner let go of its attempt. */
const seenTokens = new Map<string, string>();

/** Attempt `pid`'s token (src/runner/credentials.ts), as its runner holds it now or held it when last asked here. */
export async function attemptToken(pid: string): Promise<string | undefined> {
  const state = await runnerState(pid.slice(0, pid.lastIndexOf(".")));
  const held = state && "attempt" in state ? state.attempt : undefined;
  if (held?.pid === pid && held.token) seenTokens.set(pid, held.token);
  return seenTokens.get(pid);
}

/** A call to the processor about attempt `pid` (`/jobs/<pid><path>`), with its token, as the runner sends it. */
export async function processorCall(pid: string, path = "", init: RequestInit = {}, token?: string): Promise<Response> {
  const headers = new Headers(init.headers);
  const own = token ?? (await attemptToken(pid));
  if (own) headers.set(ATTEMPT_TOKEN_HEADER, own);
  return fetch(`${testEnv.PROCESSOR_URL}/jobs/${pid}${path}`, { ...init, headers });
}

/** The processor's view of an attempt (the same server the runner talks to), asked with its token. */
export async function processorState(pid: string, token?: string) {
  const res = await processorCall(pid, "", {}, token);
  return res.status === 404 ? undefined : ((await res.json()) as { state: string; progress: number });
}

/** The job's runner. */
export const runnerOf = (jobId: string) => testEnv.JOB_RUNNER.getByName(jobId) as DurableObjectStub<JobRunner>;

/** The runner's state as it stored it (src/runner/state.ts). */
export function runnerState(jobId: string): Promise<RunnerState | undefined> {
  return runInDurableObject(runnerOf(jobId), (_runner, state) => state.storage.get<RunnerState>(STATE_KEY));
}

/** Sets the runner's state, as the runner would have saved it, alarm aside. */
export function putRunnerState(jobId: string, runnerState: RunnerState): Promise<void> {
  return runInDurableObject(runnerOf(jobId), (_runner, state) => state.storage.put(STATE_KEY, runnerState));
}

/** Waits until the runner holds attempt `attempt` and the processor acknowledged its start. */
export function acknowledged(jobId: string, attempt = 1) {
  return waitFor(async () => {
    const state = await runnerState(jobId);
    return state?.phase === "running" && state.attempt.attempt === attempt ? state : undefined;
  }, `attempt ${attempt}'s start to be acknowledged`);
}

/** Fires the runner's alarm now, as the runtime would once it is due (its watchdog, without the wait). */
export function fireAlarm(jobId: string): Promise<void> {
  return runInDurableObject(runnerOf(jobId), (runner) => runner.alarm());
}

/** A job whose attempt 1 stays in its download (the input never ends): its runner holds `<id>.1`. */
export async function runningJob() {
  const { key } = await newKey();
  const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
  const id = created.json.id as string;
  const pid = `${id}.1`;
  await waitFor(async () => ((await processorState(pid))?.state === "running" ? true : undefined), "attempt 1 to run");
  return { key, id, pid };
}

/**
 * Serves requests that reached the Worker's public origin (PUBLIC_BASE_URL, the relay in
 * test/support/global-setup.ts) until `stop` aborts: the processor's pushed events and its
 * downloads of uploads. test/worker/relay-pump.ts runs it for every Worker test file.
 */
export async function relayToWorker(stop: AbortSignal, relay = { base: testEnv.PUBLIC_BASE_URL, scope: "" }): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  let served = 0;
  while (!stop.aborted) {
    let next: Response;
    try {
      next = await fetch(`${relay.base}/__relay/next?scope=${relay.scope}`);
    } catch {
      continue;
    }
    if (next.status !== 200) continue;
    // Served side by side: a slow request (an upload's download) holds up no other.
    for (const request of (await next.json()) as RelayedRequest[]) {
      const serving = serveRelayed(relay.base, request).finally(() => inFlight.delete(serving));
      inFlight.add(serving);
      served++;
    }
  }
  await Promise.allSettled(inFlight);
  return served;
}

interface RelayedRequest {
  id: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Base64. */
  body: string;
}

async function serveRelayed(base: string, request: RelayedRequest): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of ["range", "authorization", "content-type", PROTOCOL_HEADER]) if (request.headers[name]) headers[name] = request.headers[name];
  const body = request.body ? Uint8Array.from(atob(request.body), (c) => c.charCodeAt(0)) : undefined;
  const response = await workerFetch(`http://127.0.0.1:8787${request.path}`, { method: request.method, headers, body });
  const answer: Record<string, string> = {};
  response.headers.forEach((value, name) => (answer[name] = value));
  // Another test file's job (its Worker has no row of the attempt: 401, or holds another: 409): let another file's pump have it.
  const requeue = (response.status === 409 || response.status === 401) && [PROCESSOR_EVENTS_PATH, PROCESSOR_OUTPUTS_PATH, PROCESSOR_PLAYABLE_PATH].some((p) => request.path.startsWith(p));
  await fetch(`${base}/__relay/respond/${request.id}`, {
    method: "POST",
    headers: { "x-relay-status": String(response.status), "x-relay-headers": JSON.stringify(answer), ...(requeue ? { "x-relay-requeue": "1" } : {}) },
    body: await response.arrayBuffer(),
  });
}

/** The error lines logged (LOG_LEVEL is "error" in the worker tests) whose message matches, from now on. */
export function errorLines() {
  const spy = vi.spyOn(console, "error");
  return (message: RegExp) =>
    spy.mock.calls.flatMap(([line]: unknown[]) => {
      const parsed = typeof line === "string" && line.startsWith("{") ? (JSON.parse(line) as { message: string } & Record<string, unknown>) : undefined;
      return parsed && message.test(parsed.message) ? [parsed] : [];
    });
}

/** Pushes an event as the processor does; the status the Worker answers. */
export const pushEvent = async (state: object, token: string) =>
  (await workerFetch("http://127.0.0.1:8787/internal/processor-events", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...protocolHeader },
    body: JSON.stringify(state),
  })).status;

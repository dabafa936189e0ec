// The processor protocol's version and schemas on the Worker's side: pushed events and
// uploaded outputs of another version are refused with 409 protocol_mismatch, malformed
// events with 400 naming the field; a processor that answers with another version (or a
// body that is not a job state) is logged and counted as a failed call, so the start is
// sent again; /healthz reports the processor's version and fails on a mismatch.
// A processor of another version is the real one with its answers relabelled (a spy on
// fetch, which the runner and health reach it with: PROCESSOR_URL).
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/app.ts";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER, protocolMismatchBody } from "../../src/contract/processor-protocol.ts";
import { outputKey } from "../../src/files/r2-keys.ts";
import { processorPool } from "../../src/limits/processor-pool.ts";
import type { JobRunner } from "../../src/runner/job-runner.ts";
import { attemptToken, call, errorLines, fireAlarm, media, newKey, processorState, protocolHeader, runnerState, runningJob, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const OTHER = PROCESSOR_PROTOCOL_VERSION + 1;

const row = (id: string) => testEnv.DB.prepare("SELECT status, attempt FROM jobs WHERE id = ?").bind(id).first<{ status: string; attempt: number }>();

/**
 * Until restored, the processor speaks protocol OTHER: it refuses starts as such a
 * processor would, and its other answers carry OTHER (or `body` instead of their own).
 */
function processorOfAnotherVersion(options: { body?: (path: string) => unknown } = {}) {
  const realFetch = globalThis.fetch;
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(testEnv.PROCESSOR_URL)) return realFetch(request);
    const path = new URL(request.url).pathname;
    const version = { [PROTOCOL_HEADER]: String(OTHER) };
    if (request.method === "POST" && path === "/jobs") return Response.json(protocolMismatchBody({ processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION }), { status: 409, headers: version });
    const response = await realFetch(request);
    const replaced = options.body?.(path);
    if (replaced !== undefined) return Response.json(replaced, { status: response.status, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } });
    const headers = new Headers(response.headers);
    headers.set(PROTOCOL_HEADER, String(OTHER));
    return new Response(response.body, { status: response.status, headers });
  });
}


afterEach(() => {
  vi.restoreAllMocks();
});

describe("events and uploads of another protocol version", () => {
  it("refuses a pushed event of another version, or of none, with 409 naming both versions", async () => {
    const { id, pid } = await runningJob();
    const token = (await attemptToken(pid))!;
    const logged = errorLines();
    for (const [headers, processor] of [[{ [PROTOCOL_HEADER]: String(OTHER) }, OTHER], [{}, null]] as const) {
      const response = await workerFetch("http://127.0.0.1:8787/internal/processor-events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ id: pid, state: "failed", progress: 5, error: { code: "processing_failed", message: "from the future" } }),
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ error: "protocol_mismatch", processor, worker: PROCESSOR_PROTOCOL_VERSION, message: expect.stringContaining("the versions must be equal") });
    }
    expect(logged(/event refused: it speaks another protocol version/)).toEqual([
      expect.objectContaining({ processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION }),
      expect.objectContaining({ processor: null, worker: PROCESSOR_PROTOCOL_VERSION }),
    ]);
    expect(await row(id)).toEqual({ status: "processing", attempt: 1 });
  });

  it("refuses a malformed event with 400 naming what is wrong, and the job goes on", async () => {
    const { id, pid } = await runningJob();
    const token = (await attemptToken(pid))!;
    const push = async (body: string) => {
      const response = await workerFetch("http://127.0.0.1:8787/internal/processor-events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...protocolHeader },
        body,
      });
      return { status: response.status, text: await response.text() };
    };
    expect(await push("{")).toEqual({ status: 400, text: "body must be a processor job state (JSON)" });
    expect(await push(JSON.stringify({ id: pid, state: "exploded", progress: 5 }))).toMatchObject({ status: 400, text: expect.stringMatching(/^body must be a processor job state .*: state: /) });
    expect(await push(JSON.stringify({ id: pid, state: "failed", progress: 5, error: { code: "out_of_coffee", message: "?" } }))).toMatchObject({ status: 400, text: expect.stringContaining("error.code: ") });
    expect(await push(JSON.stringify({ id: pid, state: "running", progress: 250 }))).toMatchObject({ status: 400, text: expect.stringContaining("progress: ") });
    expect(await push(JSON.stringify({ id: "nodot", state: "running", progress: 5 }))).toMatchObject({ status: 400, text: expect.stringContaining("is not an attempt id") });
    expect(await row(id)).toEqual({ status: "processing", attempt: 1 });
    expect((await processorState(pid))?.state).toBe("running");
  });

  it("refuses an uploaded output of another version with 409 and stores nothing", async () => {
    const { id, pid } = await runningJob();
    const token = (await attemptToken(pid))!;
    const response = await workerFetch(`http://127.0.0.1:8787/internal/processor-outputs/${encodeURIComponent(pid)}/image.webp`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "image/webp", [PROTOCOL_HEADER]: String(OTHER) },
      body: new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50]),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: "protocol_mismatch", processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION });
    expect(await testEnv.OUTPUTS.head(outputKey(id, "image.webp"))).toBeNull();
  });
});

describe("a processor of another protocol version", () => {
  it("refuses the start: the runner logs both versions and seats the same attempt elsewhere, uncharged, marking the instance as going away", async () => {
    const logged = errorLines();
    const spy = processorOfAnotherVersion();
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=320&h=240"), options: { format: "webp" } } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const refused = await waitFor(async () => logged(/processor speaks another protocol version/).find((l) => l.job === id), "the refused start to be logged");
    expect(refused).toMatchObject({ call: "start", status: 409, processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION });
    // Not an end and not a failed call: the job is still on its first attempt, which the
    // processor never got, and the instance (an old container during a rollout) takes no seat.
    expect(await row(id)).toEqual({ status: "processing", attempt: 1 });
    expect(await processorState(`${id}.1`)).toBeUndefined();
    const pool = processorPool(testEnv);
    await waitFor(async () => (Object.keys(await pool.away()).length === 1 ? true : undefined), "the instance to be marked going away");
    const [instance] = Object.keys(await pool.away());
    // Its container is replaced by one of this version (its stop reaches the pool): the same attempt runs and completes.
    spy.mockRestore();
    await pool.stopped(instance!);
    const { job } = await waitForJob(key, id);
    expect(job.status).toBe("completed");
    expect(await row(id)).toEqual({ status: "completed", attempt: 1 });
  });

  it("takes a start answered by something that names no version (a proxy's 502) as a failed call, not as a processor of another version", async () => {
    const realFetch = globalThis.fetch;
    // The proxy answers every start until the test has seen the failed call counted (the
    // runner's own alarm may send it again meanwhile, however slow the machine).
    let proxyDown = true;
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (proxyDown && request.url.startsWith(testEnv.PROCESSOR_URL) && request.method === "POST" && new URL(request.url).pathname === "/jobs") return new Response("Bad Gateway", { status: 502 });
      return realFetch(request);
    });
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=320&h=240"), options: { format: "webp" } } });
    const id = created.json.id as string;
    // A failed call: the same attempt starts again on the same instance, no instance marked away.
    const state = await waitFor(async () => {
      const s = await runnerState(id);
      return s?.phase === "starting" && s.attempt.failures >= 1 ? s : undefined;
    }, "the failed start to be counted");
    expect(state.attempt.attempt).toBe(1);
    expect(await processorPool(testEnv).away()).toEqual({});
    proxyDown = false;
    spy.mockRestore();
    await fireAlarm(id);
    expect((await waitForJob(key, id)).job.status).toBe("completed");
    expect(await row(id)).toEqual({ status: "completed", attempt: 1 });
  });

  it("an answer of another version, or one that is not a job state, is a failed call, logged", async () => {
    const { id, pid } = await runningJob();
    const runner = testEnv.JOB_RUNNER.getByName(id) as DurableObjectStub<JobRunner>;
    const logged = errorLines();
    let spy = processorOfAnotherVersion();
    await runInDurableObject(runner, (instance) => instance.alarm());
    expect(logged(/processor speaks another protocol version/)).toEqual([expect.objectContaining({ job: id, call: "state", status: 200, processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION })]);
    spy.mockRestore();
    spy = processorOfAnotherVersion({ body: (path) => (path === `/jobs/${pid}` ? { id: pid, state: "exploded", progress: 5 } : undefined) });
    await runInDurableObject(runner, (instance) => instance.alarm());
    expect(logged(/answer is not a job state/)).toEqual([expect.objectContaining({ job: id, call: "state", problem: expect.stringMatching(/^state: /) })]);
    spy.mockRestore();
    // Neither ended the attempt: the job runs on.
    expect(await row(id)).toEqual({ status: "processing", attempt: 1 });
    expect((await processorState(pid))?.state).toBe("running");
  });

  it("/healthz reports the processor's version, and fails with 503 when it is not this Worker's", async () => {
    const healthy = await call("GET", "/healthz");
    expect(healthy.json.checks.processor).toMatchObject({ ok: true, protocol: { processor: PROCESSOR_PROTOCOL_VERSION, worker: PROCESSOR_PROTOCOL_VERSION, matches: true } });
    processorOfAnotherVersion({ body: (path) => (path === "/status" ? { ok: true, protocol: OTHER, running: 0, jobTypes: [], tools: {} } : undefined) });
    const res = await app.request("/healthz", {}, testEnv);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ok: boolean; checks: { processor: Record<string, unknown> } };
    expect(body.ok).toBe(false);
    expect(body.checks.processor).toMatchObject({ ok: false, protocol: { processor: OTHER, worker: PROCESSOR_PROTOCOL_VERSION, matches: false }, error: expect.stringContaining(`protocol ${OTHER}`) });
  });
});

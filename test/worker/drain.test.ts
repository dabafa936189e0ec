// A deploy's SIGTERM, as the Worker sees it (docs/deploy.md): an attempt the draining
// processor hands back starts again elsewhere without being charged, up to maxHandBacks; a
// start refused with 503 draining is neither a failed call nor an attempt more, and goes to
// another instance; the pool seats nothing on an instance that drains or whose idle stop began
// (the idle stop asks the pool first: `mayStop`).
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROCESSOR_DRAINING_BODY, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { processorPool, type ProcessorPool } from "../../src/limits/processor-pool.ts";
import { finishJob } from "../../src/runner/finish.ts";
import { acknowledged, attemptToken, downloads, media, newKey, processorState, protocolHeader, pushEvent as push, release, runnerOf, runnerState, storedJob, testEnv, waitFor, workerFetch } from "./helpers.ts";

const pool = () => processorPool(testEnv);

async function row(id: string) {
  return testEnv.DB.prepare("SELECT status, attempt, error_code AS errorCode FROM jobs WHERE id = ?").bind(id).first<{ status: string; attempt: number; errorCode: string | null }>();
}


/**
 * What a draining processor does at its deadline: pushes the attempt handed back (the runner
 * handles it before it answers: the pool marks the instance draining, the job waits for a
 * seat), then exits, and its container's stop reaches the pool (ProcessorContainer.onStop).
 */
async function handBack(pid: string): Promise<void> {
  expect(await push({ id: pid, state: "cancelled", progress: 5, handedBack: true }, (await attemptToken(pid))!)).toBe(204);
  expect(await pool().away()).toEqual({ "processor-0": "draining" });
  await pool().stopped("processor-0");
}

/** Sets vars on a Durable Object's env (the runner and the pool read theirs at each use). */
async function withVars(stub: DurableObjectStub<never> | ReturnType<typeof runnerOf> | ReturnType<typeof pool>, vars: Record<string, string>) {
  await runInDurableObject(stub as DurableObjectStub<ProcessorPool>, (instance) => {
    const held = instance as unknown as { env: Env };
    held.env = { ...held.env, ...vars } as Env;
  });
}

/** The pool as in production with two instances of one seat each (the runners still reach the local processor at PROCESSOR_URL). */
const twoInstances = () => withVars(pool(), { PROCESSOR_URL: "", PROCESSOR_INSTANCES: "2", JOBS_PER_INSTANCE: "1" });

async function queuedJob(input: string, vars: Record<string, string> = {}) {
  const { orgId } = await newKey();
  const job = await storedJob(orgId, { status: "queued", params: { url: media(input) } });
  await withVars(runnerOf(job.id), vars);
  return job;
}

// The pool is one Durable Object for the file: each test starts from the local pool with no instance away.
beforeEach(async () => {
  await withVars(pool(), { PROCESSOR_URL: testEnv.PROCESSOR_URL, PROCESSOR_INSTANCES: "", JOBS_PER_INSTANCE: "" });
  for (const instance of ["processor-0", "processor-1"]) await pool().stopped(instance);
  expect(await pool().away()).toEqual({});
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a handed-back attempt", () => {
  it("starts again without being charged: with maxAttempts 1, attempt 2 runs and the job completes", async () => {
    // The input is held until attempt 2 asks for it too: attempt 1 is still running when it is handed back.
    const tag = `handed-back-${crypto.randomUUID()}`;
    const job = await queuedJob(`/gate?tag=${tag}&label=input`, { TUNABLES_OVERRIDE: JSON.stringify({ job: { maxAttempts: 1 } }) });
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    await acknowledged(job.id);
    await handBack(`${job.id}.1`);
    // The local processor's seats serve every test file at once: under the whole suite attempt 2 may wait a while for one.
    await waitFor(async () => ((await downloads(tag)).starts.length === 2 ? true : undefined), "attempt 2 to ask for the input", 120_000);
    await release(tag);
    await waitFor(async () => ((await row(job.id))?.status === "completed" ? true : undefined), "the job to complete on attempt 2", 60_000);
    expect(await row(job.id)).toEqual({ status: "completed", attempt: 2, errorCode: null });
    // Attempt 1 was let go on the processor.
    expect(await processorState(`${job.id}.1`)).toBeUndefined();
  }, 240_000);

  it("is handed back at most maxHandBacks times uncharged; the next one is charged, and past maxAttempts the job fails", async () => {
    const job = await queuedJob("/stall", { TUNABLES_OVERRIDE: JSON.stringify({ job: { maxAttempts: 1, maxHandBacks: 2 } }) });
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    for (const attempt of [1, 2]) {
      const state = await acknowledged(job.id, attempt);
      expect(state.attempt).toMatchObject({ attempt, handBacks: attempt - 1 });
      await handBack(`${job.id}.${attempt}`);
    }
    // Attempt 3 is the one charged attempt; handed back too, it is charged, and none remains.
    await acknowledged(job.id, 3);
    await handBack(`${job.id}.3`);
    await waitFor(async () => ((await row(job.id))?.status === "failed" ? true : undefined), "the job to fail");
    expect(await row(job.id)).toEqual({ status: "failed", attempt: 3, errorCode: "processing_interrupted" });
    expect(await processorState(`${job.id}.3`)).toBeUndefined();
  });
});

describe("a start refused by a draining processor (503 draining)", () => {
  it("is not an attempt: the same attempt is seated on another instance, and the draining one takes no seat", async () => {
    await twoInstances();
    const job = await queuedJob("/image");
    const pid = `${job.id}.1`;
    // The processor of the first seat (processor-0) drains: it refuses this attempt's start.
    const real = globalThis.fetch;
    const refused: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "POST" && request.url === `${testEnv.PROCESSOR_URL}/jobs` && refused.length === 0) {
        const body = (await request.clone().json()) as { id: string };
        if (body.id === pid) {
          refused.push(body.id);
          return Response.json(PROCESSOR_DRAINING_BODY, { status: 503, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } });
        }
      }
      return real(input, init);
    });
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    await waitFor(async () => ((await row(job.id))?.status === "completed" ? true : undefined), "the job to complete");
    expect(refused).toEqual([pid]);
    // One attempt, no failed call: D1 never moved past attempt 1.
    expect(await row(job.id)).toEqual({ status: "completed", attempt: 1, errorCode: null });
    expect(await pool().away()).toEqual({ "processor-0": "draining" });
    // The row ends first; the seat goes back as finishJob's follow-up.
    await waitFor(async () => ((await pool().usage()).held === 0 ? true : undefined), "the job's seat to be given back");
    expect(await pool().usage()).toMatchObject({ held: 0, waiting: 0 });
  });

  it("waits, still at its attempt, while no other instance can take it, and starts once the draining one stopped", async () => {
    const job = await queuedJob("/image");
    const pid = `${job.id}.1`;
    const real = globalThis.fetch;
    let refusals = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "POST" && request.url === `${testEnv.PROCESSOR_URL}/jobs` && refusals === 0) {
        refusals++;
        return Response.json(PROCESSOR_DRAINING_BODY, { status: 503, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } });
      }
      return real(input, init);
    });
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    // The local pool's one instance drains: the job waits for a seat, its attempt begun once.
    await waitFor(async () => ((await runnerState(job.id))?.phase === "waiting" ? true : undefined), "the job to wait for a seat");
    expect(await runnerState(job.id)).toMatchObject({ phase: "waiting", request: { previousAttempt: 0, refused: true } });
    expect(await pool().away()).toEqual({ "processor-0": "draining" });
    expect(await row(job.id)).toMatchObject({ status: "processing", attempt: 1 });
    expect(await processorState(pid)).toBeUndefined();
    // Its container reported the stop: the instance takes seats again, and the job its attempt 1.
    await pool().stopped("processor-0");
    await waitFor(async () => ((await row(job.id))?.status === "completed" ? true : undefined), "the job to complete");
    expect(await row(job.id)).toEqual({ status: "completed", attempt: 1, errorCode: null });
    expect(refusals).toBe(1);
  });
});

describe("a stop reported before the news of a drain", () => {
  it("leaves no away mark on an instance whose container stopped after the runner heard it drain, and marks one that did not", async () => {
    await twoInstances();
    const seat = async (jobId: string) => pool().acquire({ jobId, orgId: "org_drain", priority: 5, createdAt: Date.now() });
    expect(await seat("job_early")).toBe("processor-0");
    const heardAt = Date.now();
    // The container exited (onStop) before the runner's release reached the pool.
    await pool().stopped("processor-0", heardAt + 1);
    await pool().release("job_early", { draining: true, heardAt });
    expect(await pool().away()).toEqual({});
    // A drain heard after the last stop: the instance is going away.
    expect(await seat("job_late")).toBe("processor-0");
    await pool().release("job_late", { draining: true, heardAt: Date.now() + 2 });
    expect(await pool().away()).toEqual({ "processor-0": "draining" });
  });
});

describe("the idle stop and a new seat", () => {
  it("mayStop marks an idle instance so no seat goes there, even as the warmest; refuses an instance holding a seat; the mark clears at the stop", async () => {
    await twoInstances();
    const first = await queuedJob("/image");
    expect(await runnerOf(first.id).start(first.id)).toBe(true);
    await waitFor(async () => ((await row(first.id))?.status === "completed" ? true : undefined), "the first job to complete");
    // The row ends first; the runner gives its seat back as finishJob's first follow-up.
    await waitFor(async () => ((await pool().usage()).held === 0 ? true : undefined), "the first job's seat to be given back");
    // processor-0 ran it: the most recently used idle instance, where the next job would go.
    // Its idle stop begins: the pool agrees (no seat there) and seats nothing more there.
    expect(await pool().mayStop("processor-0")).toBe(true);
    const second = await queuedJob("/stall");
    expect(await runnerOf(second.id).start(second.id)).toBe(true);
    const running = await acknowledged(second.id);
    expect(running.attempt.instance).toBe("processor-1");
    // processor-1's idle timer fires while the job is seated: the stop is refused.
    expect(await pool().mayStop("processor-1")).toBe(false);
    expect(await pool().away()).toEqual({ "processor-0": "stopping" });
    // Both instances unavailable (one full, one stopping): a third job waits.
    const third = await queuedJob("/image");
    expect(await runnerOf(third.id).start(third.id)).toBe(true);
    await waitFor(async () => ((await pool().usage()).waiting === 1 ? true : undefined), "the third job to wait");
    // The stop happened (onStop): processor-0 takes the third job, on a new container.
    await pool().stopped("processor-0");
    await waitFor(async () => ((await row(third.id))?.status === "completed" ? true : undefined), "the third job to complete");
    expect(await pool().away()).toEqual({});
    expect(await finishJob(testEnv, second.id, { status: "cancelled" })).toBe(true);
  });
});

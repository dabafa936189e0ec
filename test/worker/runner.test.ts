// The job runner's guarantees: one run per job whatever the queue does, and a lost
// processor costs an attempt, then fails the job — never leaves it processing.
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import worker from "../../src/index.ts";
import { describe, expect, it } from "vitest";
import { processorPool } from "../../src/limits/processor-pool.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { newAttemptToken } from "../../src/runner/credentials.ts";
import { finishJob } from "../../src/runner/finish.ts";
import { alarmAt, STATE_KEY, type RunnerState } from "../../src/runner/state.ts";
import { seatRequest } from "../../src/runner/seat.ts";
import { retryOnLostConnection } from "../../src/runner/transport.ts";
import { acknowledged, attemptToken, call, downloads, fireAlarm, gated, media, newKey, processorCall, processorState, protocolHeader, pushEvent as push, putRunnerState, release, runnerOf, runnerState, runningJob, storedJob, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const MAX_ATTEMPTS = TUNABLES.job.maxAttempts;

async function row(id: string) {
  return testEnv.DB.prepare("SELECT status, attempt FROM jobs WHERE id = ?").bind(id).first<{ status: string; attempt: number }>();
}


describe("the job runner", () => {
  it("begins a seat once when the pool's seated and another begin race (D1 lets the second in): one start, one token, the job completes", async () => {
    const { orgId, key } = await newKey();
    const job = await storedJob(orgId, { status: "queued", params: { url: media("/image"), format: "webp" } as never });
    await putRunnerState(job.id, { phase: "waiting", request: seatRequest(job, 0), since: Date.now() });
    const [first, second] = await Promise.all([runnerOf(job.id).seated(job.id, "processor-0"), runnerOf(job.id).seated(job.id, "processor-0")]);
    expect([first, second]).toEqual([true, true]);
    // The runner kept the attempt it began, and the processor took that attempt's token.
    const running = await acknowledged(job.id);
    expect(running.attempt.instance).toBe("processor-0");
    expect((await waitForJob(key, job.id)).job.status).toBe("completed");
  });

  it("does not run a job twice when the queue delivers its message again", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image") } });
    const id = created.json.id as string;
    const message = (n: string) => ({ id: n, timestamp: new Date(), attempts: 1, body: { jobId: id } });
    const batch = createMessageBatch("media-jobs-jobs", [message("a"), message("b")]);
    const ctx = createExecutionContext();
    await Promise.all([worker.queue(batch, testEnv, ctx), worker.queue(createMessageBatch("media-jobs-jobs", [message("c")]), testEnv, createExecutionContext())]);
    expect((await getQueueResult(batch, ctx)).explicitAcks.sort()).toEqual(["a", "b"]);
    const { job } = await waitForJob(key, id);
    expect(job.status).toBe("completed");
    expect(await row(id)).toMatchObject({ status: "completed", attempt: 1 });
    expect(await processorState(`${id}.2`)).toBeUndefined();
  });

  it("takes a job from a message that carries it, and starts nothing for a job cancelled before its message came", async () => {
    const { key } = await newKey();
    // The message as the create sends it: the job and what its organization's limiter needs.
    const deliver = async (name: string, jobId: string) => {
      const job = (await testEnv.DB.prepare("SELECT org_id AS orgId, mode, priority, created_at AS createdAt FROM jobs WHERE id = ?").bind(jobId).first<Record<string, unknown>>())!;
      const batch = createMessageBatch("media-jobs-jobs", [{ id: name, timestamp: new Date(), attempts: 1, body: { jobId, ...job } }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, testEnv, ctx);
      return (await getQueueResult(batch, ctx)).explicitAcks;
    };
    const stalled = (await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } })).json.id as string;
    await call("POST", `/v1/jobs/${stalled}/cancel`, { key });
    const cancelled = await row(stalled);
    expect(await deliver("late", stalled)).toEqual(["late"]);
    expect(await row(stalled)).toEqual({ status: "cancelled", attempt: cancelled!.attempt });
    expect(await processorState(`${stalled}.${cancelled!.attempt + 1}`)).toBeUndefined();

    const id = (await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image") } })).json.id as string;
    expect(await deliver("again", id)).toEqual(["again"]);
    expect((await waitForJob(key, id)).job.status).toBe("completed");
    expect(await row(id)).toMatchObject({ status: "completed", attempt: 1 });
  });

  it("retries on a new attempt when the processor loses the job, then fails it processing_interrupted", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const id = created.json.id as string;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const pid = `${id}.${attempt}`;
      await waitFor(async () => ((await processorState(pid))?.state === "running" ? true : undefined), `attempt ${attempt} to run`);
      await acknowledged(id, attempt);
      expect(await row(id)).toMatchObject({ status: "processing", attempt });
      // What a processor restart looks like from outside: the attempt is gone, and its
      // events stop. The runner's watchdog fires after the silence (run here at once).
      await processorCall(`${pid}`, "", { method: "DELETE" });
      await fireAlarm(id);
    }
    const { job } = await waitForJob(key, id);
    expect(job).toMatchObject({ status: "failed", error: { code: "processing_interrupted" } });
    expect(job.error.message).toContain(`${MAX_ATTEMPTS} times`);
    expect(await row(id)).toMatchObject({ status: "failed", attempt: MAX_ATTEMPTS });
  });

  it("notices a lost attempt by its own alarm, fired by the runtime, with the silence shortened by TUNABLES_OVERRIDE", async () => {
    const { orgId } = await newKey();
    const job = await storedJob(orgId, { status: "queued", params: { url: media("/stall") } });
    // The runner reads its timings from its env at each use (src/lib/tunables.ts tunablesFor).
    const override = { runner: { heartbeatMs: 50, silentHeartbeats: 2, failedCallDelayMs: 50 } };
    await runInDurableObject(runnerOf(job.id), (runner) => {
      const held = runner as unknown as { env: Env };
      held.env = { ...held.env, TUNABLES_OVERRIDE: JSON.stringify(override) } as Env;
    });
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    await acknowledged(job.id);
    // The alarm follows the override: 100 ms of silence, not 9 s.
    const { state, alarm } = await runInDurableObject(runnerOf(job.id), async (_runner, { storage }) => ({ state: (await storage.get<RunnerState>(STATE_KEY))!, alarm: await storage.getAlarm() }));
    expect(alarm! - state.since).toBeLessThanOrEqual(100);
    await processorCall(`${job.id}.1`, "", { method: "DELETE" });
    await waitFor(async () => ((await processorState(`${job.id}.2`))?.state === "running" ? true : undefined), "attempt 2 to run");
    expect(await row(job.id)).toMatchObject({ status: "processing", attempt: 2 });
    expect(await finishJob(testEnv, job.id, { status: "cancelled" })).toBe(true);
    expect(await processorState(`${job.id}.2`)).toBeUndefined();
  });

  it("ends a job as the processor pushes its end, with no watchdog left to do it, and reports where its time went", async () => {
    const { key, orgId } = await newKey();
    // The input is held until the runner's alarm is taken away: only a push can end the job.
    const tag = `pushed-${orgId}`;
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: gated(tag, "input") } });
    const id = created.json.id as string;
    const runner = runnerOf(id);
    await acknowledged(id);
    await runInDurableObject(runner, (_instance, state) => state.storage.deleteAlarm());
    await waitFor(async () => ((await downloads(tag)).held.length === 1 ? true : undefined), "the input to be asked for");
    await release(tag);
    const { job } = await waitForJob(key, id);
    expect(job.status).toBe("completed");
    const phase = expect.any(Number);
    expect(job.timings).toEqual({ queuedMs: phase, retriesMs: 0, startMs: phase, fetchInputMs: phase, processMs: phase, storeOutputMs: phase, reportMs: phase });
    // The download phase holds the time the media server held the input back.
    const held = await downloads(tag);
    expect(job.timings.fetchInputMs).toBeGreaterThanOrEqual(held.ends[0]!.at - held.starts[0]!.at);
    // The phases follow one another and make up the whole of the job's time, created to completed.
    const { created_at, completed_at } = (await testEnv.DB.prepare("SELECT created_at, completed_at FROM jobs WHERE id = ?").bind(id).first<{ created_at: number; completed_at: number }>())!;
    const phases = Object.values(job.timings as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(Math.abs(completed_at - created_at - phases)).toBeLessThanOrEqual(5);
    // Pushed (no alarm was left to ask): its end reached the runner well within a heartbeat.
    expect(job.timings.reportMs).toBeLessThan(TUNABLES.runner.heartbeatMs);
    // The runner lets go right after the row is final: nothing left in its storage, no alarm.
    await waitFor(async () => ((await runInDurableObject(runner, (_instance, state) => state.storage.list())).size === 0 ? true : undefined), "the runner to forget the job");
    expect(await runInDurableObject(runner, (_instance, state) => state.storage.getAlarm())).toBeNull();
  });

  it("polls an attempt whose processor cannot push (its callback host does not resolve): the job ends within about a second of its work", async () => {
    const { orgId } = await newKey();
    const job = await storedJob(orgId, { status: "queued" });
    // The callback's host does not resolve (RFC 6761 reserves .invalid): no event and no
    // upload reaches the Worker. The processor finds out before it answers the start.
    await runInDurableObject(runnerOf(job.id), (runner) => {
      const held = runner as unknown as { env: Env };
      held.env = { ...held.env, PUBLIC_BASE_URL: "http://runner.callback.invalid" } as Env;
    });
    const started = Date.now();
    expect(await runnerOf(job.id).start(job.id)).toBe(true);
    // The state and its alarm read at once: a poll 500 ms later may end the job (and clear both) between two reads.
    const { running, alarm } = await waitFor(
      () =>
        runInDurableObject(runnerOf(job.id), async (_runner, { storage }) => {
          const state = await storage.get<RunnerState>(STATE_KEY);
          return state?.phase === "running" ? { running: state, alarm: await storage.getAlarm() } : undefined;
        }),
      "attempt 1's start to be acknowledged",
    );
    expect(running.attempt.pushBroken).toBe(true);
    // The runtime fires the runner's alarm at the short poll, not after the 9 s silence.
    expect(alarm! - running.since).toBe(TUNABLES.runner.brokenPushPollMs);
    const ended = await waitFor(async () => {
      const r = await testEnv.DB.prepare("SELECT status, completed_at, report_ms, start_ms, fetch_input_ms, process_ms, store_output_ms FROM jobs WHERE id = ?").bind(job.id).first<Record<string, number | string>>();
      return r?.status === "completed" ? r : undefined;
    }, "the polled job to complete", 30_000);
    expect(Date.now() - started).toBeLessThan(TUNABLES.runner.heartbeatMs * TUNABLES.runner.silentHeartbeats);
    // Its outputs could not be uploaded either: the runner copied them, after a poll, not a silence.
    expect(ended.report_ms).toBeLessThan(TUNABLES.runner.heartbeatMs);
    const stored = await testEnv.OUTPUTS.list({ prefix: `outputs/${job.id}/`, include: ["customMetadata"] });
    expect(stored.objects.map((o) => o.customMetadata?.storedBy)).toEqual(["runner"]);
  });

  it("takes an event only with its attempt's own token, and only for the attempt its runner holds", async () => {
    const { key, id, pid } = await runningJob();
    const own = (await attemptToken(pid))!;
    const other = newAttemptToken();
    const failed = { id: pid, state: "failed", progress: 5, error: { code: "processing_failed", message: "forged" } };
    expect(await push(failed, other)).toBe(401);
    expect(await push(failed, "x".repeat(43))).toBe(401);
    expect(await push({ ...failed, id: `${id}.2` }, other)).toBe(401);
    expect(await push({ id: pid, state: "running", progress: 60 }, own)).toBe(204);
    expect(await row(id)).toMatchObject({ status: "processing", attempt: 1 });
    // 60 % crossed a mark, and the first write is due at once: D1 has it.
    expect((await testEnv.DB.prepare("SELECT progress FROM jobs WHERE id = ?").bind(id).first<{ progress: number }>())?.progress).toBe(60);
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
    expect(await push({ id: pid, state: "running", progress: 70 }, own)).toBe(409);
  });

  it("starts the next attempt (charged, as a lost one) when the processor ends one cancelled without being asked and without handedBack; its processor is taken as draining", async () => {
    const { key, id, pid } = await runningJob();
    await acknowledged(id);
    expect(await push({ id: pid, state: "cancelled", progress: 5 }, (await attemptToken(pid))!)).toBe(204);
    // The processor that ended it unasked is taken as draining: the pool seats nothing there until its stop is reported (test/worker/drain.test.ts).
    expect(await processorPool(testEnv).away()).toEqual({ "processor-0": "draining" });
    await processorPool(testEnv).stopped("processor-0");
    await waitFor(async () => ((await processorState(`${id}.2`))?.state === "running" ? true : undefined), "attempt 2 to run");
    expect(await row(id)).toMatchObject({ status: "processing", attempt: 2 });
    // The runner let attempt 1 go on the processor before it took a seat for attempt 2.
    expect(await processorState(pid)).toBeUndefined();
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
    expect(await processorState(`${id}.2`)).toBeUndefined();
  });

  it("sends a start the processor never got again on the same attempt instead of losing the attempt", async () => {
    const { key, id, pid } = await runningJob();
    // What a start that threw looks like: the runner holds an unacknowledged attempt the
    // processor does not have.
    await processorCall(`${pid}`, "", { method: "DELETE" });
    const { attempt } = await acknowledged(id);
    // The runner's state is one value under one key, and its alarm is the one that state implies.
    const { all, alarm } = await runInDurableObject(runnerOf(id), async (_runner, state) => ({ all: await state.storage.list<RunnerState>(), alarm: await state.storage.getAlarm() }));
    expect([...all.keys()]).toEqual([STATE_KEY]);
    expect(alarm).toBe(alarmAt(all.get(STATE_KEY)!));
    await putRunnerState(id, { phase: "starting", attempt, since: Date.now() });
    await fireAlarm(id);
    expect((await processorState(pid))?.state).toBe("running");
    expect(await row(id)).toMatchObject({ status: "processing", attempt: 1 });
    expect(await runnerState(id)).toMatchObject({ phase: "running", attempt: { pid } });
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
    expect(await processorState(pid)).toBeUndefined();
  });

  it("fails a job whose queue message was dead-lettered instead of leaving it queued", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image") } });
    const id = created.json.id as string;
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
    await testEnv.DB.prepare("UPDATE jobs SET status = 'queued', completed_at = NULL WHERE id = ?").bind(id).run();
    const batch = createMessageBatch("media-jobs-jobs-dlq", [{ id: "d", timestamp: new Date(), attempts: 1, body: { jobId: id } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, testEnv, ctx);
    await getQueueResult(batch, ctx);
    expect(await row(id)).toMatchObject({ status: "failed" });
  });
});

describe("calls to the processor", () => {
  const flaky = (first: Error) => {
    const calls: string[] = [];
    const call = retryOnLostConnection(async (path) => {
      calls.push(path);
      if (calls.length === 1) throw first;
      return new Response("ok");
    });
    return { calls, call };
  };

  it("are sent once more when a pooled connection was lost", async () => {
    const { calls, call } = flaky(new Error("Network connection lost."));
    expect(await (await call("/jobs/x")).text()).toBe("ok");
    expect(calls).toEqual(["/jobs/x", "/jobs/x"]);
  });

  it("are not sent again for any other error", async () => {
    const { calls, call } = flaky(new TypeError("fetch failed: ECONNREFUSED"));
    await expect(call("/jobs/x")).rejects.toThrow("ECONNREFUSED");
    expect(calls).toEqual(["/jobs/x"]);
  });
});

// The processor pool through the real API, limiters, runners and processor, narrowed to a
// small budget: every job completes and none fails for lack of capacity, the pool never
// holds more seats than it has, seats go fairly across organizations and by priority
// within one, a lost attempt gives its seat back and costs one attempt, and a seat is
// reclaimed only from a job no runner holds.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client.ts";
import { findJob } from "../../src/db/jobs.ts";
import { POOL } from "../../src/limits/pool-plan.ts";
import { processorPool, type ProcessorPool } from "../../src/limits/processor-pool.ts";
import { acknowledged, call, fireAlarm, gated, media, newKey, processorCall, processorState, releaseInTurn, testEnv, waitFor, waitForJob } from "./helpers.ts";

const pool = () => processorPool(testEnv);

/** Narrows this test's pool (storage is per test) to `seats` seats on its one local instance. */
async function narrowPool(seats: number) {
  await runInDurableObject(pool(), async (instance: ProcessorPool) => {
    const env = instance as unknown as { env: Env };
    env.env = { ...env.env, PROCESSOR_CONCURRENCY: String(seats) };
  });
  expect((await pool().usage()).capacity).toBe(seats);
}

const running = (id: string, attempt = 1) =>
  waitFor(async () => ((await processorState(`${id}.${attempt}`))?.state === "running" ? true : undefined), `${id} attempt ${attempt} to run`);

describe("the processor pool", () => {
  it("runs 12 jobs of 3 organizations on 2 seats: all complete, never over capacity, fair across organizations, by priority within one", async () => {
    await narrowPool(2);
    const orgs = await Promise.all(["a", "b", "c"].map(() => newKey()));
    const [a, b, c] = orgs as [(typeof orgs)[0], (typeof orgs)[0], (typeof orgs)[0]];
    const tag = `pool-${a.orgId}`;
    // Org a fills both seats; everything below then waits in the pool, still queued.
    const blockers = await Promise.all([1, 2].map(() => call("POST", "/v1/jobs", { key: a.key, body: { type: "compress-image", input: media("/stall") } })));
    for (const blocker of blockers) await running(blocker.json.id);

    const plan: { org: typeof a; name: string; priority: number }[] = [
      ...[7, 2, 9, 2, 5, 1].map((priority) => ({ org: a, name: "a", priority })),
      ...[8, 3, 3].map((priority) => ({ org: b, name: "b", priority })),
      ...[10, 4, 6].map((priority) => ({ org: c, name: "c", priority })),
    ];
    const jobs: { id: string; key: string }[] = [];
    for (const [i, job] of plan.entries()) {
      const res = await call("POST", "/v1/jobs", { key: job.org.key, body: { type: "compress-image", input: gated(tag, `${job.name}:${job.priority}:${i}`), priority: job.priority } });
      expect(res.status).toBe(201);
      jobs.push({ id: res.json.id, key: job.org.key });
    }
    await waitFor(async () => ((await pool().usage()).waiting === plan.length ? true : undefined), "all 12 jobs to wait for a seat");
    for (const { id, key } of jobs) expect((await call("GET", `/v1/jobs/${id}`, { key })).json.status).toBe("queued");

    for (const blocker of blockers) await call("POST", `/v1/jobs/${blocker.json.id}/cancel`, { key: a.key });
    // The jobs' downloads end one at a time, each once both seats are taken: the pool never
    // holds more than its seats, and fills both whenever two jobs wait.
    const seen = await releaseInTurn(tag, plan.length, 2, async ({ held }) => {
      expect(held.length).toBeLessThanOrEqual(2);
      expect((await pool().usage()).held).toBeLessThanOrEqual(2);
    });
    for (const { id, key } of jobs) expect((await waitForJob(key, id)).job).toMatchObject({ status: "completed" });
    const db = database(testEnv.DB);
    for (const { id } of jobs) expect(await findJob(db, id)).toMatchObject({ status: "completed", attempt: 1 });
    expect(seen.max).toBe(2);

    const starts = seen.starts.map((s) => {
      const [org, priority, i] = s.label.split(":");
      return { at: s.at, org: org!, priority: Number(priority), i: Number(i), end: seen.ends.find((e) => e.label === s.label)!.at };
    });
    // Within each organization: priority order, then oldest first.
    for (const org of ["a", "b", "c"]) {
      const order = starts.filter((s) => s.org === org);
      for (let k = 1; k < order.length; k++) {
        const [p, q] = [order[k - 1]!, order[k]!];
        expect(p.priority < q.priority || (p.priority === q.priority && p.i < q.i), `${org}: ${p.priority}:${p.i} before ${q.priority}:${q.i}`).toBe(true);
      }
    }
    // Across organizations: while another organization still had a job waiting, no
    // organization ran two at once (the one holding fewer seats takes the free one).
    const lastStart = (org: string) => Math.max(...starts.filter((s) => s.org === org).map((s) => s.at));
    for (const s of starts) {
      const othersWaiting = ["a", "b", "c"].some((o) => o !== s.org && lastStart(o) > s.at);
      if (!othersWaiting) continue;
      const overlapping = starts.filter((t) => t !== s && t.org === s.org && t.at <= s.at && t.end > s.at);
      expect(overlapping, `${s.org}:${s.priority}:${s.i} started while its organization already ran one`).toEqual([]);
    }
    // A row ends first; its seat goes back as finishJob's follow-up.
    await waitFor(async () => ((await pool().usage()).held === 0 ? true : undefined), "every seat to be given back");
    expect(await pool().usage()).toMatchObject({ held: 0, waiting: 0 });
  }, 120_000);

  it("gives a lost attempt's seat back, and the job costs one attempt and completes", async () => {
    await narrowPool(1);
    const first = await newKey();
    const second = await newKey();
    const tag = `lost-${first.orgId}`;
    const job = await call("POST", "/v1/jobs", { key: first.key, body: { type: "compress-image", input: media("/stall") } });
    await running(job.json.id);
    const other = await call("POST", "/v1/jobs", { key: second.key, body: { type: "compress-image", input: media(`/delayed?ms=50&tag=${tag}&label=other`) } });
    await waitFor(async () => ((await pool().usage()).waiting === 1 ? true : undefined), "the other job to wait");

    // The instance loses the attempt (what a restart looks like): its seat goes to the other
    // organization's job, which holds none; the lost job waits, still processing, then retries.
    // The runner's watchdog fires after the silence (run here at once).
    await acknowledged(job.json.id);
    await processorCall(`${job.json.id}.1`, "", { method: "DELETE" });
    await fireAlarm(job.json.id);
    expect((await waitForJob(second.key, other.json.id)).job).toMatchObject({ status: "completed" });
    await running(job.json.id, 2);
    const db = database(testEnv.DB);
    expect(await findJob(db, job.json.id)).toMatchObject({ status: "processing", attempt: 2 });
    expect(await pool().usage()).toMatchObject({ held: 1, waiting: 0 });
    await call("POST", `/v1/jobs/${job.json.id}/cancel`, { key: first.key });
    await waitFor(async () => ((await pool().usage()).held === 0 ? true : undefined), "the cancelled job's seat to free");
  }, 60_000);

  it("never reclaims a seat whose job still runs; reclaims one no runner holds", async () => {
    await narrowPool(1);
    const { key, orgId } = await newKey();
    const holder = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    await running(holder.json.id);
    // Long past the check interval: the runner answers that its attempt holds the seat.
    expect(await pool().checkSeats(Date.now() + 3 * POOL.seatCheckMs)).toEqual([]);
    expect(await pool().usage()).toMatchObject({ held: 1 });
    await call("POST", `/v1/jobs/${holder.json.id}/cancel`, { key });
    await waitFor(async () => ((await pool().usage()).held === 0 ? true : undefined), "the cancelled job's seat to free");

    // A seat granted to a job whose runner never began (what a crash between the two leaves).
    expect(await pool().acquire({ jobId: "job_gone", orgId, priority: 5, createdAt: Date.now() })).toBe("processor-0");
    const waiting = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    await waitFor(async () => ((await pool().usage()).waiting === 1 ? true : undefined), "the job to wait behind the orphan seat");
    expect(await pool().checkSeats(Date.now())).toEqual([]); // too recent to ask about
    expect(await pool().checkSeats(Date.now() + 2 * POOL.seatCheckMs)).toEqual(["job_gone"]);
    await running(waiting.json.id);
    expect(await pool().usage()).toMatchObject({ held: 1, waiting: 0 });
    await call("POST", `/v1/jobs/${waiting.json.id}/cancel`, { key });
  }, 60_000);
});

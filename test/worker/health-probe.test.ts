// GET /healthz/processor probes an instance the pool owns (processor-<n>, n below its
// instances), one already running when there is one, so that with the pool full at
// max_instances it starts no container of its own; the platform's refusals are reported
// as such.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { processorPool, type ProcessorPool } from "../../src/limits/processor-pool.ts";
import { testEnv } from "./helpers.ts";

const pool = () => processorPool(testEnv);
const INSTANCES = 3;
const SEATS = 2;

/** This test's pool (storage is per test file): the containers' budget, 3 instances of 2 seats, and its seats and last uses. */
async function poolHolding(seats: number[], lastUsed: Record<number, number> = {}, instances = INSTANCES) {
  await runInDurableObject(pool(), async (instance: ProcessorPool, state) => {
    const holder = instance as unknown as { env: Env };
    holder.env = { ...holder.env, PROCESSOR_URL: "", PROCESSOR_INSTANCES: String(instances), JOBS_PER_INSTANCE: String(SEATS) };
    const sql = state.storage.sql;
    sql.exec("DELETE FROM seats");
    sql.exec("DELETE FROM waiting");
    sql.exec("DELETE FROM instances");
    seats.forEach((n, i) => sql.exec("INSERT INTO seats (job_id, org_id, instance, checked_at) VALUES (?, 'org', ?, ?)", `job-${i}`, n, Date.now()));
    for (const [n, at] of Object.entries(lastUsed)) sql.exec("INSERT INTO instances (instance, last_used_at) VALUES (?, ?)", Number(n), at);
  });
}

/** A container binding that records which instances were asked for and answers as `answer` says. */
function containers(answer: () => Response) {
  const asked: string[] = [];
  const PROCESSOR = {
    getByName: (name: string) => {
      asked.push(name);
      return { fetch: async () => answer() };
    },
  };
  return { asked, env: { ...testEnv, PROCESSOR_URL: "", PROCESSOR } as unknown as Env };
}

const status = () =>
  Response.json(
    { ok: true, protocol: PROCESSOR_PROTOCOL_VERSION, running: 2, jobTypes: ["compressImage"], tools: { node: "v24" } },
    { headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } },
  );

async function probe(env: Env) {
  const res = await app.request("/healthz/processor", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` } }, env);
  return { status: res.status, body: (await res.json()) as { ok: boolean; checks: { processor: { ok: boolean; instance: string; error?: string } } } };
}

describe("GET /healthz/processor", () => {
  beforeEach(() => poolHolding([]));
  afterEach(() => poolHolding([], {}, 1));

  it("with every seat held, probes one of the running instances and starts no other", async () => {
    await poolHolding([2, 1, 2, 0, 1, 0]);
    expect((await pool().usage()).held).toBe(INSTANCES * SEATS);
    const { asked, env } = containers(status);
    const { status: code, body } = await probe(env);
    expect(body.checks.processor.error).toBeUndefined();
    expect(code).toBe(200);
    expect(asked).toHaveLength(1);
    expect(["processor-0", "processor-1", "processor-2"]).toContain(asked[0]);
    expect(body.checks.processor).toMatchObject({ ok: true, instance: asked[0] });
  });

  it("probes an instance running a job rather than starting a cold one", async () => {
    await poolHolding([2]);
    const { asked, env } = containers(status);
    expect((await probe(env)).body.checks.processor).toMatchObject({ ok: true, instance: "processor-2" });
    expect(asked).toEqual(["processor-2"]);
  });

  it("with no seat held, probes the instance used last while its idle stop is not due, else processor-0", async () => {
    const now = Date.now();
    // The idle stop is 60 s (TUNABLES.pool.idleStop): instance 2 has stopped, instance 1 may still run.
    await poolHolding([], { 1: now - 10_000, 2: now - 5 * 60_000 });
    expect(await pool().probeInstance(now)).toBe("processor-1");
    await poolHolding([], { 1: now - 2 * 60_000, 2: now - 5 * 60_000 });
    expect(await pool().probeInstance(now)).toBe("processor-0");
    await poolHolding([]);
    const { asked, env } = containers(status);
    expect((await probe(env)).body.checks.processor.instance).toBe("processor-0");
    expect(asked).toEqual(["processor-0"]);
  });

  it("never names an instance beyond the budget, even one a lowered budget left a seat or a last use on", async () => {
    const now = Date.now();
    await poolHolding([2], { 2: now - 1_000 }, 2);
    expect(await pool().probeInstance(now)).toBe("processor-0");
  });

  it("reports the platform's refusal as such (503), naming the instance", async () => {
    const { env } = containers(
      () =>
        new Response(
          "There is no Container instance available at this time.\nThis is likely because you have reached your max concurrent instance count (set in wrangler config) or are you currently provisioning the Container.",
          { status: 503 },
        ),
    );
    const { status: code, body } = await probe(env);
    expect(code).toBe(503);
    expect(body.checks.processor).toMatchObject({
      ok: false,
      instance: "processor-0",
      error: "the container platform answered 503 (no instance): There is no Container instance available at this time.",
    });
  });
});

// The processor pool's pure decisions: who takes a free seat (fewest seats held by the
// organization, then priority, then age), which instance it lands on (packed, warm first),
// and that the configured budget is the one wrangler.toml gives the containers.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { awayForMs, idleStop, instanceName, instanceNumber, pickInstance, planSeats, POOL, poolConfig, type HeldSeat, type PoolVars, type PoolWaiter } from "../../src/limits/pool-plan.ts";

const waiter = (jobId: string, orgId: string, priority = 5, createdAt = 0): PoolWaiter => ({ jobId, orgId, priority, createdAt });

describe("planSeats", () => {
  it("gives free seats to the organization holding fewest, then by priority, then oldest", () => {
    const held: HeldSeat[] = [
      { jobId: "a1", orgId: "a", instance: 0 },
      { jobId: "a2", orgId: "a", instance: 0 },
      { jobId: "b1", orgId: "b", instance: 1 },
    ];
    const waiting = [waiter("a3", "a", 1, 1), waiter("b2", "b", 9, 2), waiter("c1", "c", 9, 9), waiter("c2", "c", 9, 3), waiter("b3", "b", 2, 5)];
    const grants = planSeats(waiting, held, { instances: 3, seatsPerInstance: 2, vcpusPerInstance: 2 }, new Map());
    // c holds none: its oldest first; then b and c hold one each: b's priority 2 beats c's 9.
    expect(grants.map((g) => g.jobId)).toEqual(["c2", "b3", "c1"]);
  });

  it("never grants beyond instances × seats, and puts no instance over its seats", () => {
    const waiting = Array.from({ length: 30 }, (_, i) => waiter(`j${i}`, `o${i % 4}`, (i % 10) + 1, i));
    for (const held of [[], [{ jobId: "x", orgId: "o9", instance: 2 }]]) {
      const grants = planSeats(waiting, held, { instances: 3, seatsPerInstance: 2, vcpusPerInstance: 2 }, new Map());
      expect(grants).toHaveLength(6 - held.length);
      const perInstance = new Map<number, number>();
      for (const s of [...held, ...grants]) perInstance.set(s.instance, (perInstance.get(s.instance) ?? 0) + 1);
      expect([...perInstance.values()].every((n) => n <= 2)).toBe(true);
    }
  });

  it("seats every job's first seat before a fanned-out job's extra parts, whatever their age or priority", () => {
    const waiting = [{ ...waiter("chunk", "a", 1, 0), extra: true }, waiter("late", "b", 9, 50), { ...waiter("chunk2", "a", 1, 1), extra: true }];
    expect(planSeats(waiting, [], { instances: 1, seatsPerInstance: 2, vcpusPerInstance: 2 }, new Map()).map((g) => g.jobId)).toEqual(["late", "chunk"]);
  });

  it("puts no two chunks on one vCPU: a chunk goes to another instance, or waits while others take the seats", () => {
    const chunk = (id: string, createdAt: number): PoolWaiter => ({ ...waiter(id, "a", 5, createdAt), cpu: true });
    const held: HeldSeat[] = [{ jobId: "c0", orgId: "a", instance: 0, cpu: true }];
    // Instance 0 has a free seat but its one vCPU holds a chunk: the next chunk lands on 1.
    const spread = planSeats([chunk("c1", 1)], held, { instances: 2, seatsPerInstance: 2, vcpusPerInstance: 1 }, new Map([[0, 5]]));
    expect(spread).toEqual([{ jobId: "c1", instance: 1 }]);
    // One instance: the chunk waits, and a job that is no chunk takes the seat.
    const one = planSeats([chunk("c1", 1), waiter("plain", "b", 5, 9)], held, { instances: 1, seatsPerInstance: 2, vcpusPerInstance: 1 }, new Map());
    expect(one).toEqual([{ jobId: "plain", instance: 0 }]);
  });

  it("keeps seats free for no one when nothing waits, and grants nothing when full", () => {
    expect(planSeats([], [], { instances: 2, seatsPerInstance: 2, vcpusPerInstance: 2 }, new Map())).toEqual([]);
    const full: HeldSeat[] = [0, 1].map((i) => ({ jobId: `h${i}`, orgId: "a", instance: i }));
    expect(planSeats([waiter("w", "b")], full, { instances: 2, seatsPerInstance: 1, vcpusPerInstance: 1 }, new Map())).toEqual([]);
  });
});

describe("pickInstance", () => {
  it("packs onto the busiest instance with a free seat", () => {
    expect(pickInstance([1, 2, 0, 3], 3, new Map())).toBe(1);
  });

  it("prefers the idle instance used last (still warm) over a cold one", () => {
    expect(pickInstance([0, 0, 0], 2, new Map([[2, 1_000], [1, 500]]))).toBe(2);
    expect(pickInstance([0, 0, 0], 2, new Map())).toBe(0);
  });

  it("finds nothing when every instance is full", () => {
    expect(pickInstance([2, 2], 2, new Map())).toBeUndefined();
  });

  it("never picks an instance that is away (draining or stopping), not even the warm idle one or a busy one with a free seat", () => {
    // Instance 2 went idle last: without the mark it would be picked, and its idle stop may be under way.
    expect(pickInstance([0, 0, 0], 2, new Map([[2, 1_000], [1, 500]]), new Set([2]))).toBe(1);
    // The busiest with a free seat is draining: the next busiest.
    expect(pickInstance([1, 0, 0], 2, new Map(), new Set([0]))).toBe(1);
    expect(pickInstance([0, 0], 2, new Map(), new Set([0, 1]))).toBeUndefined();
  });
});

describe("planSeats with instances away", () => {
  it("seats nothing on an instance away, and waits rather than overfill the others", () => {
    const waiting = [waiter("w1", "a", 5, 1), waiter("w2", "a", 5, 2), waiter("w3", "a", 5, 3)];
    const grants = planSeats(waiting, [], { instances: 2, seatsPerInstance: 2, vcpusPerInstance: 2 }, new Map([[0, 9]]), new Set([0]));
    expect(grants).toEqual([
      { jobId: "w1", instance: 1 },
      { jobId: "w2", instance: 1 },
    ]);
  });

  it("names instances both ways, and refuses other names", () => {
    expect(instanceNumber(instanceName(7))).toBe(7);
    for (const name of ["processor-", "processor-01", "health-probe", "processor-1x", "processor--1"]) expect(instanceNumber(name), name).toBeUndefined();
  });

  it("keeps a draining instance away for drainingMarkMs in production, one wait check locally; a stopping one for stoppingMarkMs", () => {
    expect(awayForMs("draining", false)).toBe(POOL.drainingMarkMs);
    expect(awayForMs("draining", true)).toBe(POOL.waitCheckMs);
    expect(awayForMs("stopping", false)).toBe(POOL.stoppingMarkMs);
  });
});

describe("poolConfig", () => {
  const env = (vars: PoolVars) => vars;

  it("is one local instance of PROCESSOR_CONCURRENCY seats when PROCESSOR_URL is set", () => {
    expect(poolConfig(env({ PROCESSOR_URL: "http://127.0.0.1:8081", PROCESSOR_CONCURRENCY: "3", PROCESSOR_INSTANCES: "7" }))).toEqual({ instances: 1, seatsPerInstance: 3, vcpusPerInstance: 3 });
    expect(poolConfig(env({ PROCESSOR_URL: "http://127.0.0.1:8081", PROCESSOR_CONCURRENCY: "" }))).toEqual({ instances: 1, seatsPerInstance: POOL.localSeats, vcpusPerInstance: POOL.localSeats });
    expect(poolConfig(env({ PROCESSOR_URL: "http://127.0.0.1:8081", PROCESSOR_CONCURRENCY: "4", PROCESSOR_VCPUS: "2" }))).toEqual({ instances: 1, seatsPerInstance: 4, vcpusPerInstance: 2 });
  });

  it("is the containers budget in production, the vars overriding the defaults", () => {
    expect(poolConfig(env({ PROCESSOR_URL: "" }))).toEqual({ instances: POOL.instances, seatsPerInstance: POOL.jobsPerInstanceByType[POOL.instanceType], vcpusPerInstance: POOL.vcpusByType[POOL.instanceType] });
    expect(poolConfig(env({ PROCESSOR_URL: "", PROCESSOR_INSTANCES: "2", JOBS_PER_INSTANCE: "1" }))).toEqual({ instances: 2, seatsPerInstance: 1, vcpusPerInstance: 1 });
    expect(poolConfig(env({ PROCESSOR_URL: "", PROCESSOR_VCPUS: "3" })).vcpusPerInstance).toBe(3);
  });

  it("refuses a value that is not a positive integer, naming the var", () => {
    expect(() => poolConfig(env({ PROCESSOR_URL: "", JOBS_PER_INSTANCE: "0" }))).toThrow(/JOBS_PER_INSTANCE must be a positive integer, got "0"/);
    expect(() => poolConfig(env({ PROCESSOR_URL: "", PROCESSOR_INSTANCES: "2.5" }))).toThrow(/PROCESSOR_INSTANCES/);
  });

  it("stops idle containers after CONTAINER_SLEEP_AFTER, or the default when it is unset or malformed", () => {
    expect(idleStop({ CONTAINER_SLEEP_AFTER: "90s" })).toBe("90s");
    expect(idleStop({ CONTAINER_SLEEP_AFTER: "" })).toBe(POOL.idleStop);
    expect(idleStop({ CONTAINER_SLEEP_AFTER: "ten minutes" })).toBe(POOL.idleStop);
  });

  it("has the budget wrangler.toml gives the containers: max_instances and instance_type", () => {
    const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
    const containers = toml.slice(toml.search(/^\[\[containers\]\]$/m)).split(/\n\[/)[0]!;
    expect(Number(/^max_instances\s*=\s*(\d+)/m.exec(containers)?.[1])).toBe(POOL.instances);
    expect(/^instance_type\s*=\s*"([^"]+)"/m.exec(containers)?.[1]).toBe(POOL.instanceType);
  });
});

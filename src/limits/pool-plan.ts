// The processor pool's numbers, and its decisions as pure functions of its state, so they
// can be tested without Durable Objects (docs/capacity.md: the processor pool). Which
// waiting job takes the next free seat (fair across organizations, then priority, then
// age) and which instance that seat is on (packed onto running instances first, then the
// instance that went idle last, so a warm container takes the job without a cold start).

import { TUNABLES } from "../lib/tunables.ts";

/** The pool's tunables (src/lib/tunables.ts: `pool`). */
export const POOL = TUNABLES.pool;

export interface PoolConfig {
  /** Instances the pool may run at once: `max_instances` in production, 1 locally. */
  instances: number;
  /** Jobs one instance runs at once. */
  seatsPerInstance: number;
  /** Chunks of fanned-out encodes (CPU-bound seats) one instance runs at once: its vCPUs (docs/fanout.md). */
  vcpusPerInstance: number;
}

type PoolVar = "PROCESSOR_INSTANCES" | "JOBS_PER_INSTANCE" | "PROCESSOR_CONCURRENCY" | "PROCESSOR_VCPUS";
/** The Worker's vars the pool reads (wrangler.toml [vars]); empty means the default. */
export type PoolVars = Partial<Record<PoolVar | "PROCESSOR_URL" | "CONTAINER_SLEEP_AFTER", string>>;

/** A positive integer var, or the default when unset or empty; anything else is a configuration error naming the var. */
function positiveVar(env: PoolVars, name: PoolVar, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** The pool's shape for this deployment: one local instance, or the containers budget. */
export function poolConfig(env: PoolVars): PoolConfig {
  if (env.PROCESSOR_URL) {
    const seats = positiveVar(env, "PROCESSOR_CONCURRENCY", POOL.localSeats);
    return { instances: 1, seatsPerInstance: seats, vcpusPerInstance: positiveVar(env, "PROCESSOR_VCPUS", seats) };
  }
  return {
    instances: positiveVar(env, "PROCESSOR_INSTANCES", POOL.instances),
    seatsPerInstance: positiveVar(env, "JOBS_PER_INSTANCE", POOL.jobsPerInstanceByType[POOL.instanceType]),
    vcpusPerInstance: positiveVar(env, "PROCESSOR_VCPUS", POOL.vcpusByType[POOL.instanceType]),
  };
}

/** The durations @cloudflare/containers accepts for sleepAfter. */
export const IDLE_STOP_DURATION = /^\d+[smh]$/;

/** The containers' idle time, a duration @cloudflare/containers accepts; the default when unset or malformed. */
export function idleStop(env: PoolVars): string {
  const value = env.CONTAINER_SLEEP_AFTER;
  return value && IDLE_STOP_DURATION.test(value) ? value : POOL.idleStop;
}

/** The containers' idle time in milliseconds (idleStop's "<n>s", "<n>m" or "<n>h"). */
export function idleStopMs(env: PoolVars): number {
  const idle = idleStop(env);
  return Number(idle.slice(0, -1)) * { s: 1_000, m: 60_000, h: 3_600_000 }[idle.slice(-1) as "s" | "m" | "h"];
}

/** The name of instance `n`: a ProcessorContainer (production) or a label in logs (local). */
export function instanceName(n: number): string {
  return `processor-${n}`;
}

/** The number of the instance named `name` (instanceName's inverse); undefined for any other name. */
export function instanceNumber(name: string): number | undefined {
  const n = /^processor-(0|[1-9][0-9]{0,5})$/.exec(name)?.[1];
  return n === undefined ? undefined : Number(n);
}

/**
 * Why the pool seats nothing on an instance for a while: "draining", its processor got
 * SIGTERM (a rollout, a host restart) and refuses new work until it exits; "stopping", it
 * is being stopped for idleness (ProcessorContainer.onActivityExpired asked `mayStop`).
 */
export type AwayReason = "draining" | "stopping";

/**
 * How long an instance stays away: until its container reports its stop (ProcessorContainer.onStop),
 * or at most this long. Locally (PROCESSOR_URL) a draining mark is short: the one processor has no
 * container to report its stop, and its restart is the only way back.
 */
export function awayForMs(reason: AwayReason, local: boolean): number {
  if (reason === "stopping") return POOL.stoppingMarkMs;
  return local ? POOL.waitCheckMs : POOL.drainingMarkMs;
}

export interface PoolWaiter {
  jobId: string;
  orgId: string;
  /** 1 (first) to 10. */
  priority: number;
  createdAt: number;
  /** A fanned-out job's seat beyond its first (docs/fanout.md): ranks below every job's first seat. */
  extra?: boolean;
  /** A chunk of a fanned-out encode: it takes a vCPU of its own (PoolConfig.vcpusPerInstance). */
  cpu?: boolean;
}

export interface HeldSeat {
  jobId: string;
  orgId: string;
  instance: number;
  cpu?: boolean;
}

export interface SeatGrant {
  jobId: string;
  instance: number;
}

/**
 * Seats for waiting jobs while any is free. `lastUsedAt[i]` is when instance i last
 * released a seat (absent: never used, so cold); no seat goes to an instance in `away`
 * (draining or stopping). Returns the grants in the order made.
 */
export function planSeats(waiting: PoolWaiter[], held: HeldSeat[], config: PoolConfig, lastUsedAt: ReadonlyMap<number, number>, away: ReadonlySet<number> = new Set()): SeatGrant[] {
  const heldByOrg = new Map<string, number>();
  const used = new Array<number>(config.instances).fill(0);
  const cpuUsed = new Array<number>(config.instances).fill(0);
  for (const seat of held) {
    heldByOrg.set(seat.orgId, (heldByOrg.get(seat.orgId) ?? 0) + 1);
    // A seat on an instance beyond the budget (the budget was lowered) still counts against it.
    if (seat.instance < config.instances) used[seat.instance]! += 1;
    if (seat.cpu && seat.instance < config.instances) cpuUsed[seat.instance]! += 1;
  }
  let free = Math.max(0, config.instances * config.seatsPerInstance - held.length);
  const queue = [...waiting];
  const grants: SeatGrant[] = [];
  while (free > 0 && queue.length > 0) {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (fairOrder(queue[i]!, queue[best]!, heldByOrg) < 0) best = i;
    const [job] = queue.splice(best, 1);
    // A chunk goes only where a vCPU has no other chunk; with none, it waits and the next in line may go.
    const full = job!.cpu ? new Set([...away, ...cpuUsed.flatMap((n, i) => (n >= config.vcpusPerInstance ? [i] : []))]) : away;
    const instance = pickInstance(used, config.seatsPerInstance, lastUsedAt, full);
    if (instance === undefined) {
      if (job!.cpu) continue;
      break;
    }
    used[instance]! += 1;
    if (job!.cpu) cpuUsed[instance]! += 1;
    heldByOrg.set(job!.orgId, (heldByOrg.get(job!.orgId) ?? 0) + 1);
    grants.push({ jobId: job!.jobId, instance });
    free -= 1;
  }
  return grants;
}

/** Every job's first seat before any extra seat of a fanned-out job; then the organization holding fewest seats, then priority 1 first, then oldest; the id makes the order total. */
function fairOrder(a: PoolWaiter, b: PoolWaiter, heldByOrg: ReadonlyMap<string, number>): number {
  return (
    Number(a.extra ?? false) - Number(b.extra ?? false) ||
    (heldByOrg.get(a.orgId) ?? 0) - (heldByOrg.get(b.orgId) ?? 0) ||
    a.priority - b.priority ||
    a.createdAt - b.createdAt ||
    (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0)
  );
}

/**
 * The busiest instance that still has a free seat (packing leaves the others idle, so they
 * stop); failing that, the idle instance used most recently (likely still warm); failing
 * that, the lowest-numbered one never used. Never one in `away`: the most recently used idle
 * instance is exactly the one whose idle stop may be under way.
 */
export function pickInstance(used: readonly number[], seatsPerInstance: number, lastUsedAt: ReadonlyMap<number, number>, away: ReadonlySet<number> = new Set()): number | undefined {
  let best: number | undefined;
  const rank = (i: number): [number, number, number] => [used[i]!, lastUsedAt.get(i) ?? -1, -i];
  for (let i = 0; i < used.length; i++) {
    if (used[i]! >= seatsPerInstance || away.has(i)) continue;
    if (best === undefined || compareRank(rank(i), rank(best)) > 0) best = i;
  }
  return best;
}

function compareRank(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

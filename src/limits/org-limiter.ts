// OrgLimiter: one Durable Object per organization and mode (docs/limits.md). It admits job
// creations against the hourly quota (quota.ts) and gives concurrency slots to waiting jobs.
import { DurableObject } from "cloudflare:workers";
import type { Plan } from "../db/schema.ts";
import { configureLogging, log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "./plans.ts";
import { quotaVerdict, type QuotaVerdict } from "./quota.ts";

const { quotaWindowMs, slotLeaseMs, slotCheckAheadMs, doneMemoryMs, startRetryMs } = TUNABLES.limiter;

/** The limiter's own counts, which GET /v1/usage (src/contract/usage.ts `Usage`) and the dashboard show. */
export interface LimiterUsage {
  plan: Plan;
  jobsInWindow: number;
  processing: number;
  queued: number;
  /** Seconds until the oldest job in the window leaves it (null when the window is empty). */
  windowResetsInS: number | null;
}

/** A job waiting for a slot. Slots go by priority (1 first), then oldest, then id: the index `waiting_order`. */
export interface Waiting {
  jobId: string;
  priority: number;
  createdAt: number;
}

export function limiterFor(env: Env, orgId: string, mode: string) {
  return env.ORG_LIMITER.getByName(`${orgId}:${mode}`);
}

/** The organization of a limiter named by `limiterFor` (`<orgId>:<mode>`). */
function orgOfLimiter(name: string): string {
  return name.slice(0, name.lastIndexOf(":"));
}

/**
 * Being one object, its decisions are atomic across every Worker instance; being one per
 * organization, one organization's backlog never delays another. A slot is held from the
 * job's start until it ends (finishJob releases it); its lease is kept by the limiter itself
 * (`#checkExpiringSlots`), so a slot is never given away while its job runs, whatever the
 * runner is doing.
 */
export class OrgLimiter extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureLogging(env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS admissions (job_id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS admissions_at ON admissions (at);
      CREATE TABLE IF NOT EXISTS waiting (job_id TEXT PRIMARY KEY, priority INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS waiting_order ON waiting (priority, created_at, job_id);
      CREATE TABLE IF NOT EXISTS slots (job_id TEXT PRIMARY KEY, lease_expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS done (job_id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
  }

  #plan(): Plan {
    return (this.#sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'plan'").toArray()[0]?.value as Plan) ?? "free";
  }

  #setPlan(plan: Plan): void {
    this.#sql.exec("INSERT INTO meta (key, value) VALUES ('plan', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", plan);
  }

  /**
   * Admits one job creation against `plan`'s hourly quota, or refuses it and counts nothing.
   * Either way it first records `plan` (the organization's, read with the API key) as the
   * limiter's plan, which `dispatch` then goes by: a plan changed meanwhile takes effect here.
   */
  admit(jobId: string, plan: Plan, now = Date.now()): QuotaVerdict {
    this.#setPlan(plan);
    this.#sql.exec("DELETE FROM admissions WHERE at <= ?", now - quotaWindowMs);
    // Counts at most `limit` entries of admissions_at instead of loading the whole window
    // (up to 10,000 rows); the limit-th newest is read only when the window is full.
    const limit = PLAN_LIMITS[plan].jobsPerHour;
    const { count, oldest } = this.#sql
      .exec<{ count: number; oldest: number | null }>("SELECT (SELECT count(*) FROM (SELECT 1 FROM admissions LIMIT ?)) AS count, (SELECT min(at) FROM admissions) AS oldest", limit)
      .one();
    const limitthNewest =
      count < limit ? undefined : this.#sql.exec<{ at: number }>("SELECT at FROM admissions ORDER BY at DESC LIMIT 1 OFFSET ?", limit - 1).one().at;
    const verdict = quotaVerdict({ count, oldest: oldest ?? undefined, limitthNewest }, limit, now);
    if (verdict.ok) this.#sql.exec("INSERT OR IGNORE INTO admissions (job_id, at) VALUES (?, ?)", jobId, now);
    return verdict;
  }

  /**
   * Admits every job of a workflow or none (docs/workflows.md): each counts against the
   * hourly quota as one job. Atomic, as `admit`: nothing awaits between the checks. The
   * refusal is the first job's that did not fit, its admitted companions taken back.
   */
  admitAll(jobIds: string[], plan: Plan, now = Date.now()): QuotaVerdict {
    let verdict: QuotaVerdict | undefined;
    const admitted: string[] = [];
    for (const jobId of jobIds) {
      verdict = this.admit(jobId, plan, now);
      if (!verdict.ok) {
        for (const id of admitted) this.forget(id);
        return verdict;
      }
      admitted.push(jobId);
    }
    return verdict!;
  }

  /** Takes back an admission whose job could not be created after all. */
  forget(jobId: string): void {
    this.#sql.exec("DELETE FROM admissions WHERE job_id = ?", jobId);
  }

  /**
   * A queued job asks for a slot; it starts now if one is free. Idempotent. The limiter
   * goes by the plan it has (set when the job was admitted, or changed since).
   */
  async enqueue(job: Waiting, now = Date.now()): Promise<void> {
    const known = this.#sql
      .exec("SELECT 1 FROM slots WHERE job_id = ?1 UNION ALL SELECT 1 FROM done WHERE job_id = ?1", job.jobId)
      .toArray().length;
    if (!known) {
      this.#sql.exec("INSERT OR IGNORE INTO waiting (job_id, priority, created_at) VALUES (?, ?, ?)", job.jobId, job.priority, job.createdAt);
    }
    await this.dispatch(now);
  }

  /** Extends a running job's slot; false when the slot was lost (reclaimed). */
  #renew(jobId: string, now: number): boolean {
    const cursor = this.#sql.exec("UPDATE slots SET lease_expires_at = ? WHERE job_id = ?", now + slotLeaseMs, jobId);
    return cursor.rowsWritten > 0;
  }

  /**
   * Slots whose lease runs out within slotCheckAheadMs: each one whose runner still has its
   * job is extended, the others are reclaimed. A runner that cannot be asked keeps its slot
   * until the next check: a slot is never given away on a guess.
   */
  async #checkExpiringSlots(now: number): Promise<void> {
    const expired = this.#sql.exec<{ job_id: string }>("SELECT job_id FROM slots WHERE lease_expires_at <= ?", now + slotCheckAheadMs).toArray();
    await Promise.all(
      expired.map(async ({ job_id: jobId }) => {
        let holds = true;
        try {
          holds = await this.env.JOB_RUNNER.getByName(jobId).holds(jobId);
        } catch (error) {
          log("warn", "could not ask a runner about its slot; keeping it", { job: jobId, error: String(error) });
        }
        if (holds) return this.#renew(jobId, now);
        log("warn", "slot's runner no longer has its job; reclaiming it", { job: jobId });
        this.#sql.exec("DELETE FROM slots WHERE job_id = ?", jobId);
        return false;
      }),
    );
  }

  /** A job ended (or was cancelled): its slot or place in line is freed at once. */
  async release(jobId: string, now = Date.now()): Promise<void> {
    this.#sql.exec("DELETE FROM slots WHERE job_id = ?", jobId);
    this.#sql.exec("DELETE FROM waiting WHERE job_id = ?", jobId);
    this.#sql.exec("INSERT OR REPLACE INTO done (job_id, at) VALUES (?, ?)", jobId, now);
    this.#sql.exec("DELETE FROM done WHERE at < ?", now - doneMemoryMs);
    await this.dispatch(now);
  }

  async setPlanNow(plan: Plan, now = Date.now()): Promise<void> {
    this.#setPlan(plan);
    await this.dispatch(now);
  }

  usage(now = Date.now()): LimiterUsage {
    const inWindow = this.#sql
      .exec<{ n: number; oldest: number | null }>("SELECT count(*) AS n, min(at) AS oldest FROM admissions WHERE at > ?", now - quotaWindowMs)
      .one();
    const processing = this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM slots").one().n;
    const queued = this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM waiting").one().n;
    return {
      plan: this.#plan(),
      jobsInWindow: inWindow.n,
      processing,
      queued,
      windowResetsInS: inWindow.oldest === null ? null : Math.ceil((inWindow.oldest + quotaWindowMs - now) / 1000),
    };
  }

  /**
   * Checks expiring slots with their runners and starts waiting jobs while slots are free,
   * in the order of `waiting_order`. Reads only the waiting jobs that can start now
   * (through that index), so a backlog of thousands makes no call slower.
   */
  async dispatch(now = Date.now()): Promise<void> {
    await this.#checkExpiringSlots(now);
    for (;;) {
      // Expiry was decided above, with the runners: every slot still here is held.
      const held = this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM slots").one().n;
      const free = PLAN_LIMITS[this.#plan()].concurrentJobs - held;
      if (free <= 0) break;
      const start = this.#sql
        .exec<{ job_id: string; priority: number; created_at: number }>("SELECT job_id, priority, created_at FROM waiting ORDER BY priority, created_at, job_id LIMIT ?", free)
        .toArray()
        .map((r): Waiting => ({ jobId: r.job_id, priority: r.priority, createdAt: r.created_at }));
      if (start.length === 0) break;
      // Slots are taken before any await, so an interleaved call sees them as held.
      for (const { jobId } of start) {
        this.#sql.exec("DELETE FROM waiting WHERE job_id = ?", jobId);
        this.#sql.exec("INSERT OR REPLACE INTO slots (job_id, lease_expires_at) VALUES (?, ?)", jobId, now + slotLeaseMs);
      }
      const results = await Promise.all(start.map((job) => this.#start(job, now)));
      // A job that will not run (cancelled meanwhile, already finished) gave its slot back: go again.
      if (!results.includes("will not run")) break;
    }
    await this.#scheduleAlarm(now);
  }

  /**
   * Hands the job its slot: "started" (its runner has it), "will not run" (the slot is free
   * again), or "unreachable" (the job waits again, retried after startRetryMs, not at once).
   */
  async #start(job: Waiting, now: number): Promise<"started" | "will not run" | "unreachable"> {
    const { jobId } = job;
    // With the organization known from this limiter's name, the runner asks for a seat without reading the job's row.
    const name = this.ctx.id.name;
    const queued = name === undefined ? undefined : { orgId: orgOfLimiter(name), priority: job.priority, createdAt: job.createdAt };
    try {
      if (await this.env.JOB_RUNNER.getByName(jobId).start(jobId, queued)) return "started";
      this.#sql.exec("DELETE FROM slots WHERE job_id = ?", jobId);
      this.#sql.exec("INSERT OR REPLACE INTO done (job_id, at) VALUES (?, ?)", jobId, now);
      return "will not run";
    } catch (error) {
      log("warn", "could not start a job; it waits for the next dispatch", { job: jobId, error: String(error) });
      const row = this.#sql.exec("DELETE FROM slots WHERE job_id = ? RETURNING job_id", jobId).toArray();
      if (row.length) this.#sql.exec("INSERT OR IGNORE INTO waiting (job_id, priority, created_at) VALUES (?, ?, ?)", jobId, job.priority, job.createdAt);
      await this.ctx.storage.setAlarm(now + startRetryMs);
      return "unreachable";
    }
  }

  /** Wakes up to check the first slot whose lease is about to run out. */
  async #scheduleAlarm(now: number): Promise<void> {
    const next = this.#sql.exec<{ at: number | null }>("SELECT min(lease_expires_at) AS at FROM slots").one().at;
    if (next === null) return;
    const checkAt = Math.max(next - slotCheckAheadMs, now + 1);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > checkAt) await this.ctx.storage.setAlarm(checkAt);
  }

  override async alarm(): Promise<void> {
    await this.dispatch(Date.now());
  }
}

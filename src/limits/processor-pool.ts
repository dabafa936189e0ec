// ProcessorPool: one Durable Object for the whole service that owns the processor seats
// (docs/capacity.md: the processor pool). The containers budget (`max_instances`) is part
// of admission: a job takes a seat on a processor instance before it starts, or waits
// here (still `queued` in D1) until one frees; then the pool calls its runner to begin.
// Waiting jobs take seats fairly across organizations, then by priority, then by age;
// seats are packed onto instances already running, so a warm container takes the next job
// and idle ones stop. The org limiter still applies each plan's concurrency first.
import { DurableObject } from "cloudflare:workers";
import { configureLogging, log } from "../lib/log.ts";
import { awayForMs, idleStopMs, instanceName, instanceNumber, planSeats, POOL, poolConfig, type AwayReason, type HeldSeat, type PoolWaiter } from "./pool-plan.ts";

export function processorPool(env: Env) {
  return env.PROCESSOR_POOL.getByName("pool");
}

export interface PoolUsage {
  capacity: number;
  held: number;
  waiting: number;
  /** Seats held on each instance that has any, by instance name. */
  byInstance: Record<string, number>;
}

export class ProcessorPool extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureLogging(env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS waiting (job_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, priority INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS seats (job_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, instance INTEGER NOT NULL, checked_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS instances (instance INTEGER PRIMARY KEY, last_used_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS away (instance INTEGER PRIMARY KEY, reason TEXT NOT NULL, until INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS stops (instance INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    `);
    // Added with chunked encoding (docs/fanout.md): a fanned-out job's extra seats, and its chunks' vCPUs.
    this.#addColumn("waiting", "extra", "INTEGER NOT NULL DEFAULT 0");
    this.#addColumn("waiting", "cpu", "INTEGER NOT NULL DEFAULT 0");
    this.#addColumn("seats", "cpu", "INTEGER NOT NULL DEFAULT 0");
  }

  /** Adds a column a table created by an older deploy lacks. */
  #addColumn(table: string, column: string, declaration: string): void {
    const columns = this.#sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray();
    if (!columns.some((c) => c.name === column)) this.#sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
  }

  /**
   * A job asks for a seat: the instance it runs on now, or null while it waits (the pool
   * then calls its runner's `seated` when one frees). Idempotent: a job that holds a seat
   * gets the same one again.
   */
  async acquire(job: PoolWaiter, now = Date.now()): Promise<string | null> {
    const held = this.#seatOf(job.jobId);
    if (held !== undefined) return instanceName(held);
    this.#sql.exec(
      "INSERT OR IGNORE INTO waiting (job_id, org_id, priority, created_at, extra, cpu) VALUES (?, ?, ?, ?, ?, ?)",
      job.jobId,
      job.orgId,
      job.priority,
      job.createdAt,
      job.extra ? 1 : 0,
      job.cpu ? 1 : 0,
    );
    await this.dispatch(now, job.jobId);
    const granted = this.#seatOf(job.jobId);
    return granted === undefined ? null : instanceName(granted);
  }

  /**
   * The job ended, lost its attempt or was cancelled: its seat (or place in line) goes to the
   * next job. `draining`: its processor is going away (it refused the start with 503 draining,
   * or handed the attempt back), so its instance gets no seat until it stops.
   */
  async release(jobId: string, { draining = false, heardAt, now = Date.now() }: { draining?: boolean; heardAt?: number; now?: number } = {}): Promise<void> {
    const freed = this.#sql.exec<{ instance: number }>("DELETE FROM seats WHERE job_id = ? RETURNING instance", jobId).toArray()[0];
    this.#sql.exec("DELETE FROM waiting WHERE job_id = ?", jobId);
    if (freed) this.#touch(freed.instance, now);
    // `heardAt`: when the runner learnt the instance is going away. A stop reported since
    // then means its next start is a new container: no mark, which would outlast it.
    const stoppedAt = freed ? this.#sql.exec<{ at: number }>("SELECT at FROM stops WHERE instance = ?", freed.instance).toArray()[0]?.at : undefined;
    if (freed && draining && !(stoppedAt !== undefined && stoppedAt >= (heardAt ?? now))) this.#markAway(freed.instance, "draining", now);
    await this.dispatch(now);
  }

  /**
   * Asked by an idle container before it stops (ProcessorContainer.onActivityExpired): true,
   * and the instance gets no seat until it reports its stop (`stopped`), when it holds none;
   * false when a job holds a seat there (granted after the container saw itself idle): it
   * must stay. One statement's check and mark, with no await between: a seat is granted
   * either before (and the stop is refused) or after (and goes elsewhere).
   */
  mayStop(instance: string, now = Date.now()): boolean {
    const n = instanceNumber(instance);
    if (n === undefined) return true;
    if (this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM seats WHERE instance = ?", n).one().n > 0) return false;
    this.#markAway(n, "stopping", now);
    return true;
  }

  /** The instance's container stopped (ProcessorContainer.onStop): its next start is a new container, so it may take seats again. */
  async stopped(instance: string, now = Date.now()): Promise<void> {
    const n = instanceNumber(instance);
    if (n === undefined) return;
    this.#sql.exec("INSERT INTO stops (instance, at) VALUES (?, ?) ON CONFLICT (instance) DO UPDATE SET at = excluded.at", n, now);
    if (this.#sql.exec("DELETE FROM away WHERE instance = ? RETURNING instance", n).toArray().length) await this.dispatch(now);
  }

  /** The instances taking no seats now, and why. */
  away(now = Date.now()): Record<string, AwayReason> {
    return Object.fromEntries(this.#away(now).map((r) => [instanceName(r.instance), r.reason]));
  }

  #markAway(instance: number, reason: AwayReason, now: number): void {
    const until = now + awayForMs(reason, !!this.env.PROCESSOR_URL);
    log("info", "instance takes no seats", { instance: instanceName(instance), reason, until: new Date(until).toISOString() });
    this.#sql.exec(
      "INSERT INTO away (instance, reason, until) VALUES (?, ?, ?) ON CONFLICT (instance) DO UPDATE SET reason = excluded.reason, until = max(until, excluded.until)",
      instance,
      reason,
      until,
    );
  }

  /** The marks still in force at `now` (expired ones are deleted). */
  #away(now: number): { instance: number; reason: AwayReason }[] {
    this.#sql.exec("DELETE FROM away WHERE until <= ?", now);
    return this.#sql.exec<{ instance: number; reason: AwayReason }>("SELECT instance, reason FROM away").toArray();
  }

  usage(): PoolUsage {
    const config = poolConfig(this.env);
    const rows = this.#sql.exec<{ instance: number; n: number }>("SELECT instance, count(*) AS n FROM seats GROUP BY instance").toArray();
    return {
      capacity: config.instances * config.seatsPerInstance,
      held: rows.reduce((sum, r) => sum + r.n, 0),
      waiting: this.#sql.exec<{ n: number }>("SELECT count(*) AS n FROM waiting").one().n,
      byInstance: Object.fromEntries(rows.map((r) => [instanceName(r.instance), r.n])),
    };
  }

  /**
   * Gives free seats to waiting jobs and calls their runners (except `caller`'s, which is
   * answered by `acquire`). Seats are recorded before any await, so an interleaved call
   * sees them as taken.
   */
  async dispatch(now = Date.now(), caller?: string): Promise<void> {
    for (;;) {
      const waiting = this.#sql
        .exec<{ job_id: string; org_id: string; priority: number; created_at: number; extra: number; cpu: number }>("SELECT * FROM waiting")
        .toArray()
        .map((r): PoolWaiter => ({ jobId: r.job_id, orgId: r.org_id, priority: r.priority, createdAt: r.created_at, extra: r.extra === 1, cpu: r.cpu === 1 }));
      const held = this.#sql
        .exec<{ job_id: string; org_id: string; instance: number; cpu: number }>("SELECT job_id, org_id, instance, cpu FROM seats")
        .toArray()
        .map((r): HeldSeat => ({ jobId: r.job_id, orgId: r.org_id, instance: r.instance, cpu: r.cpu === 1 }));
      const lastUsed = new Map(
        this.#sql.exec<{ instance: number; last_used_at: number }>("SELECT * FROM instances").toArray().map((r) => [r.instance, r.last_used_at]),
      );
      const grants = planSeats(waiting, held, poolConfig(this.env), lastUsed, new Set(this.#away(now).map((r) => r.instance)));
      if (grants.length === 0) break;
      const waiterOf = new Map(waiting.map((w) => [w.jobId, w]));
      for (const grant of grants) {
        this.#sql.exec("DELETE FROM waiting WHERE job_id = ?", grant.jobId);
        this.#sql.exec(
          "INSERT INTO seats (job_id, org_id, instance, checked_at, cpu) VALUES (?, ?, ?, ?, ?)",
          grant.jobId,
          waiterOf.get(grant.jobId)!.orgId,
          grant.instance,
          now,
          waiterOf.get(grant.jobId)!.cpu ? 1 : 0,
        );
      }
      const started = await Promise.all(grants.filter((g) => g.jobId !== caller).map((g) => this.#seat(g.jobId, g.instance, now)));
      // A job that could not start (cancelled or finished meanwhile) gave its seat back: go again.
      if (started.every(Boolean)) break;
    }
    await this.#scheduleCheck(now);
  }

  /** Calls the job's runner to begin on its seat; false when the seat came back (the job will not run). */
  async #seat(jobId: string, instance: number, now: number): Promise<boolean> {
    try {
      if (await this.env.JOB_RUNNER.getByName(jobId).seated(jobId, instanceName(instance))) return true;
      this.#sql.exec("DELETE FROM seats WHERE job_id = ?", jobId);
      return false;
    } catch (error) {
      // The runner may have begun before the call failed, so the seat stays taken: the
      // runner's own check (every waitCheckMs) collects it, or the seat check reclaims it.
      log("warn", "could not hand a seat to a runner", { job: jobId, error: String(error) });
      this.#sql.exec("UPDATE seats SET checked_at = ? WHERE job_id = ?", now - POOL.seatCheckMs, jobId);
      return true;
    }
  }

  #seatOf(jobId: string): number | undefined {
    return this.#sql.exec<{ instance: number }>("SELECT instance FROM seats WHERE job_id = ?", jobId).toArray()[0]?.instance;
  }

  #touch(instance: number, now: number): void {
    this.#sql.exec(
      "INSERT INTO instances (instance, last_used_at) VALUES (?, ?) ON CONFLICT (instance) DO UPDATE SET last_used_at = excluded.last_used_at",
      instance,
      now,
    );
  }

  async #scheduleCheck(now: number): Promise<void> {
    const oldest = this.#sql.exec<{ at: number | null }>("SELECT min(checked_at) AS at FROM seats").one().at;
    if (oldest === null) return;
    const due = Math.max(now + 1, oldest + POOL.seatCheckMs);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > due) await this.ctx.storage.setAlarm(due);
  }

  /**
   * Asks the runner of every seat not confirmed for seatCheckMs whether its job still holds
   * it; reclaims the seats their runners let go of. A runner that cannot be asked keeps
   * its seat: a seat is never given away while its job may still run.
   */
  async checkSeats(now = Date.now()): Promise<string[]> {
    const stale = this.#sql
      .exec<{ job_id: string; instance: number }>("SELECT job_id, instance FROM seats WHERE checked_at <= ?", now - POOL.seatCheckMs)
      .toArray();
    const reclaimed: string[] = [];
    await Promise.all(
      stale.map(async ({ job_id: jobId, instance }) => {
        let holds = true;
        try {
          holds = await this.env.JOB_RUNNER.getByName(jobId).holdsSeat(instanceName(instance));
        } catch (error) {
          log("warn", "could not ask a runner about its seat; keeping it", { job: jobId, error: String(error) });
        }
        if (holds) {
          this.#sql.exec("UPDATE seats SET checked_at = ? WHERE job_id = ?", now, jobId);
          return;
        }
        log("warn", "reclaiming a seat its runner let go of", { job: jobId, instance: instanceName(instance) });
        if (this.#sql.exec("DELETE FROM seats WHERE job_id = ? RETURNING job_id", jobId).toArray().length) this.#touch(instance, now);
        reclaimed.push(jobId);
      }),
    );
    await this.dispatch(now);
    return reclaimed;
  }

  override async alarm(): Promise<void> {
    await this.checkSeats(Date.now());
  }

  /**
   * The instance GET /healthz/processor probes, always one of the pool's own (never a
   * container beyond `max_instances`) and never one that drains or is stopping: one that
   * holds a seat (running), else the one used last while it may still be up (its idle stop
   * not yet due), else the first instance not going away.
   */
  probeInstance(now = Date.now()): string {
    const { instances } = poolConfig(this.env);
    const away = new Set(this.#away(now).map((r) => r.instance));
    const usable = (n: number) => n < instances && !away.has(n);
    const idleMs = idleStopMs(this.env);
    const seated = this.#sql.exec<{ instance: number }>("SELECT DISTINCT instance FROM seats ORDER BY instance").toArray().find((r) => usable(r.instance));
    if (seated) return instanceName(seated.instance);
    const recent = this.#sql
      .exec<{ instance: number }>("SELECT instance FROM instances WHERE last_used_at > ? ORDER BY last_used_at DESC", now - idleMs)
      .toArray()
      .find((r) => usable(r.instance));
    if (recent) return instanceName(recent.instance);
    return instanceName(Array.from({ length: instances }, (_, n) => n).find(usable) ?? 0);
  }
}

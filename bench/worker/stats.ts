// Per-job counts of D1 statements and Durable Object requests for `npm run bench`
// (docs/benchmarks.md, section 6), kept by the bench's Worker (index.ts) and nowhere else.

const JOB_ID = /^job_[A-Za-z0-9]{24}$/;
const DELIVERY_ID = /^msg_[A-Za-z0-9]+$/;
const NAMESPACES = ["JOB_RUNNER", "ORG_LIMITER", "PROCESSOR_POOL"] as const;

export interface JobStats {
  /** D1 statements by source. */
  d1: Record<string, number>;
  /** Durable Object requests by namespace binding (JOB_RUNNER…), alarms included. */
  durableObjects: Record<string, number>;
  /** The same requests by what they were: `JOB_RUNNER.event`, `ORG_LIMITER alarm`… */
  requests: Record<string, number>;
}

interface Counters {
  jobs: Map<string, JobStats>;
  unattributed: JobStats;
  /** Webhook delivery id → its job. */
  deliveries: Map<string, string>;
}

// In the isolate's memory. Locally (`wrangler dev`) the Worker and its Durable Objects share
// one isolate, so GET /admin/stats sees them all; deployed, each isolate would count only its
// own share, which is why this is a local measuring tool.
const counters: Counters = { jobs: new Map(), unattributed: emptyStats(), deliveries: new Map() };

function emptyStats(): JobStats {
  return { d1: {}, durableObjects: {}, requests: {} };
}

export function statsSnapshot(): { jobs: Record<string, JobStats>; unattributed: JobStats } {
  return { jobs: Object.fromEntries(counters.jobs), unattributed: counters.unattributed };
}

export function resetStats(): void {
  counters.jobs.clear();
  counters.deliveries.clear();
  counters.unattributed = emptyStats();
}

function add(jobId: string | undefined, kind: keyof JobStats, key: string, n = 1): void {
  let stats = counters.unattributed;
  if (jobId) {
    stats = counters.jobs.get(jobId) ?? emptyStats();
    counters.jobs.set(jobId, stats);
  }
  stats[kind][key] = (stats[kind][key] ?? 0) + n;
}

/**
 * The job a statement or call is about: a job id among its values (or an object's
 * `jobId`), else the job of a webhook delivery id among them. A statement naming both (the
 * delivery's insert) links the delivery to the job.
 */
function jobOf(values: readonly unknown[]): string | undefined {
  const ids = values.flatMap((v) => (typeof v === "string" ? [v] : v && typeof v === "object" && "jobId" in v && typeof v.jobId === "string" ? [v.jobId] : []));
  const job = ids.find((id) => JOB_ID.test(id));
  const delivery = ids.find((id) => DELIVERY_ID.test(id));
  if (job && delivery) counters.deliveries.set(delivery, job);
  return job ?? (delivery && counters.deliveries.get(delivery));
}

/**
 * One source of work: a request (its route, ids replaced by `:id`), a queue batch, a cron
 * run or a Durable Object class, so a client's own reads (`GET /v1/jobs/:id`) can be told
 * apart from the job's work. A statement counts for the job it binds (`jobOf`); one that
 * binds none, made while serving a request about a job (the key lookup of `POST /v1/jobs`,
 * before the job's row exists), counts for that job once the request names it; anything
 * else is `unattributed`.
 */
class Context {
  readonly source: string;
  /** The job a request is about, once known; statements before that wait for it. */
  #job: string | undefined;
  #pending = 0;
  readonly #perRequest: boolean;

  constructor(source: string, perRequest: boolean, job?: string) {
    this.source = source;
    this.#perRequest = perRequest;
    this.#job = job;
  }

  statement(params: readonly unknown[]): void {
    const job = jobOf(params);
    if (!this.#perRequest) return add(job, "d1", this.source);
    if (job && !this.#job) {
      this.#job = job;
      if (this.#pending) add(job, "d1", this.source, this.#pending);
      this.#pending = 0;
    }
    if (job ?? this.#job) add(job ?? this.#job, "d1", this.source);
    else this.#pending++;
  }
}

// A D1 statement is one D1 result, counted when D1 answers: `run`, `all`, `first`, `raw`
// one each, `batch` one per result it returns.
type Statement = D1PreparedStatement & { readonly inner: D1PreparedStatement; readonly params: unknown[] };

function countedStatement(inner: D1PreparedStatement, params: unknown[], context: Context): Statement {
  const counted = <T>(result: Promise<T>) =>
    result.then((value) => {
      context.statement(params);
      return value;
    });
  return {
    inner,
    params,
    bind: (...values: unknown[]) => countedStatement(inner.bind(...values), values, context),
    first: ((column?: string) => counted(column === undefined ? inner.first() : inner.first(column))) as D1PreparedStatement["first"],
    run: (() => counted(inner.run())) as D1PreparedStatement["run"],
    all: (() => counted(inner.all())) as D1PreparedStatement["all"],
    raw: ((options?: { columnNames?: boolean }) => counted(inner.raw(options as { columnNames: true }))) as D1PreparedStatement["raw"],
  } as Statement;
}

function countedD1(d1: D1Database, context: Context): D1Database {
  const wrapped: Partial<D1Database> = {
    prepare: (query: string) => countedStatement(d1.prepare(query), [], context),
    batch: (async (statements: Statement[]) => {
      // One D1 result per statement that ran, each with its own meta.
      const results = await d1.batch(statements.map((s) => s.inner));
      results.forEach((_, i) => context.statement(statements[i]!.params));
      return results;
    }) as D1Database["batch"],
    exec: async (query: string) => {
      const result = await d1.exec(query);
      for (let i = 0; i < result.count; i++) context.statement([]);
      return result;
    },
  };
  return new Proxy(d1, { get: (target, key) => (key in wrapped ? wrapped[key as keyof D1Database] : Reflect.get(target, key)) });
}

function countedStub<T extends object>(stub: T, binding: string, name: string | undefined): T {
  return new Proxy(stub, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function" || typeof key === "symbol" || key === "then") return value;
      return (...args: unknown[]) => {
        const job = jobOf(name === undefined ? args : [name, ...args]);
        add(job, "durableObjects", binding);
        add(job, "requests", `${binding}.${key}`);
        // Reflect.apply: an RPC method is itself a stub, whose .apply would be a remote call.
        return Reflect.apply(value, target, args);
      };
    },
  });
}

function countedNamespace<T extends object>(namespace: T, binding: string): T {
  return new Proxy(namespace, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (key === "getByName") return (name: string, ...rest: unknown[]) => countedStub(Reflect.apply(value as Function, target, [name, ...rest]), binding, name);
      if (key === "get") return (id: DurableObjectId, ...rest: unknown[]) => countedStub(Reflect.apply(value as Function, target, [id, ...rest]), binding, id.name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * An alarm invocation of the limiter or the pool (billed as a request). Their alarms serve
 * every job at once, so they count as `unattributed`; with one job running, they are its.
 */
export function countAlarm(binding: "ORG_LIMITER" | "PROCESSOR_POOL"): void {
  add(undefined, "durableObjects", binding);
  add(undefined, "requests", `${binding} alarm`);
}

/**
 * An env whose DB and Durable Object namespaces count per job. Every entry point wraps its
 * own (fetch, queue, scheduled and each Durable Object's constructor: index.ts), so a count
 * does not depend on which code makes the call. `source` names the entry point; for an HTTP
 * request, pass the request.
 */
export function instrument(env: Env, source: string | Request): Env {
  const path = typeof source === "string" ? undefined : new URL(source.url).pathname;
  const context =
    typeof source === "string"
      ? new Context(source, false)
      : new Context(`${source.method} ${routeOf(path!)}`, true, path!.split("/").find((part) => JOB_ID.test(part)));
  const counted: Record<string, unknown> = { ...env, DB: countedD1(env.DB, context) };
  for (const binding of NAMESPACES) counted[binding] = countedNamespace(env[binding], binding);
  return counted as unknown as Env;
}

/** A path with its ids replaced: /v1/jobs/job_abc/events → /v1/jobs/:id/events. */
function routeOf(path: string): string {
  return path.replace(/\/[a-z]{3}_[A-Za-z0-9]{8,}/g, "/:id");
}

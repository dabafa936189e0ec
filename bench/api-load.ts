// Section 3: requests per second and latency of POST /v1/jobs and GET /v1/jobs/:id under
// concurrent load, beside two minimal Hono Workers on the same runtime (wrangler dev, local
// workerd) that answer with JSON of the same size: the bare one does nothing else; the
// floor makes the storage calls any correct create (or read) needs and nothing else, which
// shows how much of the service's cost is the local emulation of D1, Durable Objects and
// Queues rather than its own code. The load generator is closed-loop: `concurrency`
// requests in flight, each followed at once by the next.
import { spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { freePort, type Service } from "../test/support/service.ts";
import { MEDIA_DIR, type Inputs, type MediaServer } from "./media.ts";
import { log, median, Org, percentile, pool, since, sleep, until } from "./support.ts";

export interface LoadResult {
  target: "service" | "baseline" | "floor";
  route: "POST /v1/jobs" | "GET /v1/jobs/:id";
  requests: number;
  concurrency: number;
  /** Requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  /** Status codes other than the expected one, by code. */
  unexpected: Record<string, number>;
  bodyBytes: number;
}

export interface ApiResult {
  rows: LoadResult[];
  keys: number;
  /** Jobs of another organization kept running (their downloads held) while the service's POSTs were measured: seen processing before and after. */
  running: { before: number; after: number };
}

/** Issue 16: creates while this many jobs run, at least this share of the bare Worker's requests per second. */
export const CREATE_GOAL = { running: 20, ratio: 0.5 } as const;

export const LOAD = { concurrency: 16, posts: 600, gets: 2000, warmup: 40, deadlineMs: 60_000 } as const;

interface Request {
  url: string;
  init: () => RequestInit;
  expect: number;
}

async function load(target: LoadResult["target"], route: LoadResult["route"], count: number, request: (i: number) => Request): Promise<LoadResult> {
  // Warm-up: the first requests compile code and open connections.
  await pool(LOAD.warmup, LOAD.concurrency, LOAD.deadlineMs, async (i) => {
    const r = request(i);
    await (await fetch(r.url, r.init())).arrayBuffer();
  });
  const latencies: number[] = [];
  const unexpected: Record<string, number> = {};
  let bodyBytes = 0;
  const start = performance.now();
  await pool(count, LOAD.concurrency, LOAD.deadlineMs, async (i) => {
    const r = request(LOAD.warmup + i);
    const t0 = performance.now();
    const response = await fetch(r.url, r.init());
    const body = await response.arrayBuffer();
    latencies.push(since(t0));
    bodyBytes = body.byteLength;
    if (response.status !== r.expect) unexpected[response.status] = (unexpected[response.status] ?? 0) + 1;
  });
  const seconds = (performance.now() - start) / 1000;
  return {
    target,
    route,
    requests: latencies.length,
    concurrency: LOAD.concurrency,
    rps: latencies.length / seconds,
    p50: median(latencies),
    p99: percentile(latencies, 99),
    unexpected,
    bodyBytes,
  };
}

const WRANGLER_HEAD = `main = "index.ts"\ncompatibility_date = "2026-11-01"\ncompatibility_flags = ["nodejs_compat"]\n`;

/** A Hono Worker that answers both routes with fixed JSON and does nothing else. */
function bareWorker(created: unknown, job: unknown): WorkerSource {
  return {
    name: "baseline",
    index: `import { Hono } from "hono";
const created = ${JSON.stringify(created)};
const job = ${JSON.stringify(job)};
const app = new Hono();
app.post("/v1/jobs", async (c) => { await c.req.json(); return c.json(created, 201); });
app.get("/v1/jobs/:id", (c) => c.json(job));
app.get("/", (c) => c.text("ok"));
export default app;
`,
    toml: `name = "bench-baseline"\n${WRANGLER_HEAD}`,
  };
}

/**
 * The same answers after the storage calls a create needs in any design that keeps the
 * service's promises (a revoked key fails at once, the quota is exact, a created job is
 * durable and dispatched): the key looked up in D1 by its hash, one call to a Durable
 * Object that counts admissions in SQLite, the row inserted in D1, a queue message. A read
 * looks the key up and reads the row. No validation, no signing, no logging.
 */
function floorWorker(created: unknown, job: unknown): WorkerSource {
  return {
    name: "floor",
    index: `import { Hono } from "hono";
import { DurableObject } from "cloudflare:workers";
const created = ${JSON.stringify(created)};
const job = ${JSON.stringify(job)};
export class Limiter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS admissions (id TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  }
  admit(id) {
    this.ctx.storage.sql.exec("INSERT INTO admissions (id, at) VALUES (?, ?)", id, Date.now());
    return true;
  }
}
async function keyOrg(c) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(c.req.header("authorization") ?? ""));
  const hash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return c.env.DB.prepare("SELECT org FROM keys WHERE hash = ?").bind(hash).first();
}
const app = new Hono();
app.post("/v1/jobs", async (c) => {
  const body = await c.req.json();
  await keyOrg(c);
  const id = crypto.randomUUID();
  await c.env.LIMITER.getByName("org").admit(id);
  await c.env.DB.prepare("INSERT INTO jobs (id, body, created_at) VALUES (?, ?, ?)").bind(id, JSON.stringify(body), Date.now()).run();
  await c.env.JOBS.send({ id });
  return c.json(created, 201);
});
app.get("/v1/jobs/:id", async (c) => {
  await keyOrg(c);
  await c.env.DB.prepare("SELECT * FROM jobs WHERE id = ?").bind(c.req.param("id")).first();
  return c.json(job);
});
app.get("/", async (c) => {
  await c.env.DB.batch([
    c.env.DB.prepare("CREATE TABLE IF NOT EXISTS keys (hash TEXT PRIMARY KEY, org TEXT NOT NULL)"),
    c.env.DB.prepare("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL)"),
  ]);
  return c.text("ok");
});
export default { fetch: app.fetch, async queue(batch) { batch.ackAll(); } };
`,
    toml: `name = "bench-floor"
${WRANGLER_HEAD}
[[d1_databases]]
binding = "DB"
database_name = "bench-floor"
database_id = "00000000-0000-0000-0000-000000000000"

[[durable_objects.bindings]]
name = "LIMITER"
class_name = "Limiter"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Limiter"]

[[queues.producers]]
binding = "JOBS"
queue = "bench-floor-jobs"

[[queues.consumers]]
queue = "bench-floor-jobs"
`,
  };
}

interface WorkerSource {
  name: string;
  index: string;
  toml: string;
}

/** Starts one of the comparison Workers under wrangler dev, like the service, on fresh local state. */
async function startWorker(source: WorkerSource): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = join(MEDIA_DIR, source.name);
  await rm(join(dir, "state"), { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "index.ts"), source.index);
  await writeFile(join(dir, "wrangler.toml"), source.toml);
  const [port, inspector] = [await freePort(), await freePort()];
  const wrangler = resolve(MEDIA_DIR, "../../node_modules/wrangler/bin/wrangler.js");
  const child = spawn(
    process.execPath,
    [wrangler, "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", join(dir, "state"), "--show-interactive-dev-session=false", "--log-level", "warn"],
    { cwd: dir, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let output = "";
  child.stdout.on("data", (d) => (output = (output + d).slice(-5000)));
  child.stderr.on("data", (d) => (output = (output + d).slice(-5000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {}
    await Promise.race([exited, sleep(10_000)]);
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  };
  try {
    await until(async () => (child.exitCode !== null ? Promise.reject(new Error(output)) : fetch(url).then((r) => (r.ok ? true : undefined), () => undefined)), 200, 60_000, `the ${source.name} worker`);
  } catch (error) {
    await stop();
    throw new Error(`${source.name} worker did not start: ${String(error)}\n${output}`);
  }
  return { url, stop };
}

/** Waits until the organization has nothing queued or processing (jobs the load created). */
export async function drain(org: Org, deadlineMs = 180_000): Promise<void> {
  await until(
    async () => {
      const [queued, processing] = await Promise.all([org.listJobs("status=queued&limit=1"), org.listJobs("status=processing&limit=1")]);
      return queued.length + processing.length === 0 ? true : undefined;
    },
    500,
    deadlineMs,
    `${org.slug}'s jobs to finish`,
  );
}

export async function measureApi(service: Service, inputs: Inputs, media: MediaServer): Promise<ApiResult> {
  // Enterprise: 10,000 creates an hour. Reads are limited to 300 a minute per key, so the
  // GET load spreads over enough keys that the limit never answers.
  const keys = 20;
  const org = await Org.create(service, "bench-api", "enterprise", keys);
  const input = media.url(inputs.small);
  const body = JSON.stringify({ type: "compress-image", input, options: { quality: 70 } });

  // A finished job to read, and the exact bodies the baseline will send.
  const created = await org.createJob("compress-image", input, { quality: 70 });
  const job = await org.waitForJob(created.id, 100, 60_000);

  const rows: LoadResult[] = [];
  let running = { before: 0, after: 0 };
  const baseline = await startWorker(bareWorker(created, job));
  const floor = await startWorker(floorWorker(created, job)).catch(async (error: unknown) => {
    await baseline.stop();
    throw error;
  });
  try {
    const post = (base: string) => (i: number): Request => ({
      url: `${base}/v1/jobs`,
      init: () => ({ method: "POST", headers: { authorization: `Bearer ${org.keys[i % keys]}`, "content-type": "application/json" }, body }),
      expect: 201,
    });
    const get = (base: string) => (i: number): Request => ({
      url: `${base}/v1/jobs/${job.id}`,
      init: () => ({ headers: { authorization: `Bearer ${org.keys[i % keys]}` } }),
      expect: 200,
    });
    log("  baseline Hono worker: POST, GET");
    rows.push(await load("baseline", "POST /v1/jobs", LOAD.posts, post(baseline.url)));
    rows.push(await load("baseline", "GET /v1/jobs/:id", LOAD.gets, get(baseline.url)));
    log("  floor Hono worker (the storage calls only): POST, GET");
    rows.push(await load("floor", "POST /v1/jobs", LOAD.posts, post(floor.url)));
    rows.push(await load("floor", "GET /v1/jobs/:id", LOAD.gets, get(floor.url)));
    log(`  service: POST /v1/jobs while ${CREATE_GOAL.running} jobs run`);
    const held = await Org.create(service, "bench-running", "enterprise");
    for (let i = 0; i < CREATE_GOAL.running; i++) await held.createJob("compress-image", media.heldUrl(inputs.small), { quality: 70 });
    const processing = async () => (await held.listJobs(`status=processing&limit=${CREATE_GOAL.running}`)).length;
    const before = await until(async () => ((await processing()) === CREATE_GOAL.running ? CREATE_GOAL.running : undefined), 250, 60_000, `${CREATE_GOAL.running} held jobs to be processing`);
    rows.push(await load("service", "POST /v1/jobs", LOAD.posts, post(service.baseUrl)));
    running = { before, after: await processing() };
    media.release();
    // The creates started real (small) jobs: let them finish before the reads are measured.
    log("  waiting for the created jobs to finish");
    await drain(held);
    await drain(org);
    log("  service: GET /v1/jobs/:id");
    rows.push(await load("service", "GET /v1/jobs/:id", LOAD.gets, get(service.baseUrl)));
  } finally {
    await Promise.all([baseline.stop(), floor.stop()]);
  }
  return { rows, keys, running };
}

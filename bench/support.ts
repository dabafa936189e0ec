// Small helpers shared by the benchmark sections: statistics, a bounded concurrency pool,
// an API client that rotates keys (reads are limited per key), and running tools.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Service } from "../test/support/service.ts";

export const exec = promisify(execFile);

/**
 * The bench's service: the production Worker wrapped by bench/worker/index.ts, which counts
 * D1 statements per job (section 6), with room for section 3's 20 running jobs (the local
 * processor has 4 seats by default).
 */
export const BENCH_SERVICE = { entry: "bench/worker/index.ts", vars: { PROCESSOR_CONCURRENCY: "20" } } as const;

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0–100); NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Milliseconds since `start` (performance.now() based), to 0.1 ms. */
export function since(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: since(start), value };
}

/**
 * Runs `task` for i = 0, 1, … with at most `concurrency` in flight, until `count` tasks
 * have started or `deadlineMs` has passed. Every loop in the bench is bounded like this.
 */
export async function pool(count: number, concurrency: number, deadlineMs: number, task: (i: number) => Promise<void>): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let next = 0;
  const worker = async () => {
    while (next < count && Date.now() < deadline) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next;
}

/**
 * Open-loop load: starts task i at i / ratePerS seconds, whether or not the earlier ones
 * have answered, and waits for all. Unlike a closed loop (`pool`), a slow answer does not
 * delay the next request, so latencies are the service's, not a measure of its throughput.
 */
export async function arrivals(count: number, ratePerS: number, task: (i: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const tasks: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / ratePerS - performance.now();
    if (wait > 0) await sleep(wait);
    tasks.push(task(i));
  }
  await Promise.all(tasks);
}

/**
 * Polls `check` every `intervalMs` until it returns a value, or fails after `deadlineMs`.
 * `intervalMs` may grow with the time waited so far (a function of the elapsed ms).
 */
export async function until<T>(check: () => Promise<T | undefined>, intervalMs: number | ((elapsedMs: number) => number), deadlineMs: number, what: string): Promise<T> {
  const start = Date.now();
  const deadline = start + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(typeof intervalMs === "number" ? intervalMs : intervalMs(Date.now() - start));
  }
}

/**
 * Polls every 100 ms, then every 2 % of the time waited so far, up to a second: a short
 * job is seen within 100 ms of its end, a 50-second one within a second, and the bench's
 * own reads (each one a request the local Worker serves on the cores the tool runs on)
 * do not slow the job they wait for.
 */
export const pollInterval = (elapsedMs: number): number => Math.min(1000, Math.max(100, elapsedMs * 0.02));

export interface HttpJob {
  id: string;
  status: "queued" | "processing" | "completed" | "failed" | "cancelled";
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  result?: Record<string, any>;
  error?: { code: string; message: string };
}

/** One organization's view of the API, spreading its requests over several keys. */
export class Org {
  #turn = 0;
  readonly slug: string;
  readonly baseUrl: string;
  readonly keys: string[];

  constructor(slug: string, baseUrl: string, keys: string[]) {
    this.slug = slug;
    this.baseUrl = baseUrl;
    this.keys = keys;
  }

  static async create(service: Service, slug: string, plan: "free" | "pro" | "enterprise", keyCount = 1): Promise<Org> {
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) {
      const response = await fetch(`${service.baseUrl}/admin/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ org: slug, plan, mode: "live" }),
      });
      if (response.status !== 201) throw new Error(`creating a key for ${slug}: HTTP ${response.status} ${await response.text()}`);
      keys.push(((await response.json()) as { key: string }).key);
    }
    return new Org(slug, service.baseUrl, keys);
  }

  key(): string {
    return this.keys[this.#turn++ % this.keys.length]!;
  }

  async createJob(type: string, input: string, options: Record<string, unknown> = {}): Promise<HttpJob> {
    const response = await fetch(`${this.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.key()}`, "content-type": "application/json" },
      body: JSON.stringify({ type, input, options }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/jobs (${type}): HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as HttpJob;
  }

  async getJob(id: string): Promise<HttpJob> {
    const response = await fetch(`${this.baseUrl}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${this.key()}` } });
    if (!response.ok) throw new Error(`GET /v1/jobs/${id}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as HttpJob;
  }

  async listJobs(query: string): Promise<HttpJob[]> {
    const response = await fetch(`${this.baseUrl}/v1/jobs?${query}`, { headers: { authorization: `Bearer ${this.key()}` } });
    if (!response.ok) throw new Error(`GET /v1/jobs?${query}: HTTP ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: HttpJob[] }).data;
  }

  /** Polls the job until it is finished; fails unless it completed. */
  async waitForJob(id: string, intervalMs: number | ((elapsedMs: number) => number), deadlineMs: number): Promise<HttpJob> {
    const job = await until(
      async () => {
        const job = await this.getJob(id);
        return job.status === "queued" || job.status === "processing" ? undefined : job;
      },
      intervalMs,
      deadlineMs,
      `job ${id}`,
    );
    if (job.status !== "completed") throw new Error(`job ${id} ended ${job.status}: ${JSON.stringify(job.error)}`);
    return job;
  }
}

/** Whether someone else's test run shares the machine right now (measurements are noisy then). */
export async function othersRunning(): Promise<boolean> {
  try {
    const { stdout } = await exec("pgrep", ["-f", "vitest"]);
    return stdout.trim().length > 0;
  } catch {
    return false;
  }
}

export function log(message: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

// Section 6b: the Durable Object requests of a long job, and the CPU a 1080p encode takes
// (docs/capacity.md prices both). An hour-long job is too slow to run, so two jobs of one
// type differ only in how long they run: a small image, and the same image sent a piece at a
// time for a few minutes (bench/media.ts trickleUrl: running, no progress, almost no CPU).
// The difference is what grows with time (heartbeats, the pool's seat checks, the limiter's
// lease renewals), per minute; an hour is the short job's count, plus that rate × 60, plus
// the progress pushes (at most MAX_PROGRESS_PUSHES an attempt), plus what does not run
// locally (the cron sweep's pokes, the hops through the container's own object). The 30 s
// 1080p encode shows the progress pushes of a real job; each job type run by the processor's
// own JobTable, what it costs in CPU.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../container/src/config.ts";
import { MAX_PROGRESS_PUSHES } from "../container/src/events.ts";
import { JobTable } from "../container/src/jobs.ts";
import { httpJobType, jobTypes, type JobType } from "../src/contract/registry.ts";
import { TUNABLES } from "../src/lib/tunables.ts";
import type { Service } from "../test/support/service.ts";
import type { Inputs, MediaServer } from "./media.ts";
import { CASES } from "./overhead.ts";
import { settled, stats, type JobStats } from "./statements.ts";
import { exec, log, Org, sleep } from "./support.ts";

/** One job's Durable Object requests, alarms of the limiter and the pool included (they served only it). */
export interface JobRequests {
  /** The job's own processing time, startedAt → completedAt. */
  seconds: number;
  total: number;
  /** By what they were: `JOB_RUNNER.event`, `PROCESSOR_POOL alarm`… */
  requests: Record<string, number>;
}

export interface CostResult {
  short: JobRequests;
  held: JobRequests;
  /** (held − short) ÷ (their difference in minutes). */
  perMinute: number;
  perMinuteBy: Record<string, number>;
  encode: JobRequests;
  /** Each job type run by the processor's own JobTable in this process: its CPU seconds (tools included) and wall time. */
  cpu: CpuRow[];
  hour: { short: number; timed: number; progress: number; sweeps: number; containerHops: number; total: number };
}

export interface CpuRow {
  type: JobType;
  input: keyof Inputs;
  options: Record<string, unknown>;
  /** User + system CPU of this process and the tools it waited for (/proc/self/stat). */
  cpuS: number;
  wallS: number;
  outputBytes: number;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Runs one job alone and counts its requests, and the limiter's and pool's alarms meanwhile (stats are reset first). */
async function countJob(service: Service, org: Org, type: Parameters<typeof httpJobType>[0], url: string, options: Record<string, unknown>): Promise<JobRequests> {
  await stats(service, "DELETE");
  const created = await org.createJob(httpJobType(type), url, options);
  const done = await org.waitForJob(created.id, 1_000, 30 * 60_000);
  if (done.status !== "completed") throw new Error(`job ${done.id} ended ${done.status}: ${JSON.stringify(done.error)}`);
  const own: JobStats = await settled(service, created.id);
  const alarms = (await stats(service, "GET")).unattributed.requests ?? {};
  const requests = { ...own.requests };
  for (const [key, n] of Object.entries(alarms)) if (key.endsWith(" alarm")) requests[key] = (requests[key] ?? 0) + n;
  return { seconds: (Date.parse(done.completedAt!) - Date.parse(done.startedAt!)) / 1000, total: total(requests), requests };
}

/** CPU seconds used so far by this process and the children it waited for: utime, stime, cutime, cstime. */
async function cpuSeconds(ticksPerSecond: number): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14–17 of proc(5), counted from the state (field 3) here.
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / ticksPerSecond;
}

/**
 * Runs one job of each case on the processor's own JobTable in this process, one at a time,
 * and reads what it cost in CPU (sharp's threads, and ffmpeg or Ghostscript as children):
 * what a container's active-CPU bill counts. The media server answering the download runs
 * in this process too, a small part of the figure.
 */
async function measureCpu(inputs: Inputs, media: MediaServer): Promise<CpuRow[]> {
  const ticksPerSecond = Number((await exec("getconf", ["CLK_TCK"])).stdout.trim());
  const workDir = await mkdtemp(join(tmpdir(), "media-jobs-bench-cpu-"));
  const table = new JobTable(loadConfig({ WORK_DIR: workDir, ALLOW_PRIVATE_NETWORK_INPUTS: "true", LOG_LEVEL: "error" }, tmpdir()));
  const rows: CpuRow[] = [];
  try {
    for (const c of CASES) {
      const id = `cpu_${rows.length}.1`;
      const cpu0 = await cpuSeconds(ticksPerSecond);
      const t0 = performance.now();
      table.start({ id, type: c.type, params: jobTypes[c.type].params.parse({ url: media.url(inputs[c.input]), ...c.options }) as never });
      let state = table.get(id)!;
      while (state.state === "running") {
        await sleep(20);
        state = table.get(id)!;
      }
      const wallS = (performance.now() - t0) / 1000;
      const cpuS = (await cpuSeconds(ticksPerSecond)) - cpu0;
      if (state.state !== "completed") throw new Error(`${c.type} (${c.input}) ended ${state.state}: ${JSON.stringify(state)}`);
      rows.push({ type: c.type, input: c.input, options: c.options, cpuS, wallS, outputBytes: state.outputs.reduce((a, o) => a + o.size, 0) });
      log(`  ${c.type} (${c.input}): ${cpuS.toFixed(2)} CPU s in ${wallS.toFixed(2)} s`);
      await table.remove(id);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return rows;
}

export async function measureCost(service: Service, org: Org, inputs: Inputs, media: MediaServer, heldMs: number): Promise<CostResult> {
  const short = await countJob(service, org, "compressImage", media.url(inputs.small), { quality: 80 });
  log(`  short compressImage: ${short.total} Durable Object requests in ${short.seconds.toFixed(1)} s`);
  const held = await countJob(service, org, "compressImage", media.trickleUrl(inputs.small, heldMs), { quality: 80 });
  log(`  the same, input sent over ${heldMs / 1000} s: ${held.total} requests in ${held.seconds.toFixed(1)} s`);
  const minutes = (held.seconds - short.seconds) / 60;
  const perMinuteBy: Record<string, number> = {};
  for (const key of new Set([...Object.keys(held.requests), ...Object.keys(short.requests)])) {
    const extra = (held.requests[key] ?? 0) - (short.requests[key] ?? 0);
    if (extra !== 0) perMinuteBy[key] = extra / minutes;
  }
  const perMinute = (held.total - short.total) / minutes;

  const encode = await countJob(service, org, "compressVideo", media.url(inputs.video), { quality: "medium" });
  log(`  compressVideo of the 1080p 30 s clip: ${encode.total} requests in ${encode.seconds.toFixed(1)} s`);
  const cpu = await measureCpu(inputs, media);

  // Not run locally: the cron (every cronPeriodMs) pokes a runner past its lease, and the runner
  // asks its processor; in production the start, the release and each question to the
  // processor also go through its container's Durable Object (locally they go to PROCESSOR_URL).
  const sweeps = (2 * 3600_000) / TUNABLES.sweep.cronPeriodMs;
  const containerHops = 2;
  const timed = Math.round(perMinute * 60);
  return {
    short,
    held,
    perMinute,
    perMinuteBy,
    encode,
    cpu,
    hour: { short: short.total, timed, progress: MAX_PROGRESS_PUSHES, sweeps, containerHops, total: short.total + timed + MAX_PROGRESS_PUSHES + sweeps + containerHops },
  };
}

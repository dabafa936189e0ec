// Section 6: D1 statements and Durable Object requests per job, for every job type on a
// long and a short input, counted by the bench's Worker (bench/worker/stats.ts, which the
// bench runs instead of src/index.ts) and read from GET /admin/stats. Jobs run one
// at a time; the counts are settled (unchanged over a second) before they are read. The
// bench's own polls (GET /v1/jobs/:id) are counted apart: a client that waits for a
// webhook does not make them.
import type { Service } from "../test/support/service.ts";
import { httpJobType, type JobType } from "../src/contract/registry.ts";
import type { Inputs, MediaServer } from "./media.ts";
import { CASES, isShort } from "./overhead.ts";
import { log, median, Org, until } from "./support.ts";

/** One job's counts as GET /admin/stats returns them (bench/worker/stats.ts). */
export interface JobStats {
  d1: Record<string, number>;
  durableObjects: Record<string, number>;
  /** By what they were: `JOB_RUNNER.event`, `ORG_LIMITER alarm`… */
  requests: Record<string, number>;
}

/** The client's reads of its job, not the job's own cost. */
export const CLIENT_READS = "GET /v1/jobs/:id";

export const STATEMENT_GOAL = 10;

export interface StatementsRow {
  type: JobType;
  input: keyof Inputs;
  short: boolean;
  jobs: number;
  /** Per job, client reads excluded: median and largest. */
  d1: number;
  d1Max: number;
  /** Median job's statements by source (route, queue, cron, Durable Object class). */
  bySource: Record<string, number>;
  /** The bench's polls of the job (100 ms apart), median. */
  clientReads: number;
  durableObjects: number;
  byNamespace: Record<string, number>;
  met: boolean;
}

export interface StatementsResult {
  rows: StatementsRow[];
  /** Statements no job could be named for, over the whole section (key lookups of other requests, cron). */
  unattributed: number;
}

export async function stats(service: Service, method: "GET" | "DELETE"): Promise<{ jobs: Record<string, JobStats>; unattributed: JobStats }> {
  const response = await fetch(`${service.baseUrl}/admin/stats`, { method, headers: { authorization: `Bearer ${service.adminToken}` } });
  if (!response.ok) throw new Error(`${method} /admin/stats: HTTP ${response.status} ${await response.text()} (is the service the bench's Worker, bench/worker/index.ts?)`);
  return method === "GET" ? ((await response.json()) as never) : { jobs: {}, unattributed: { d1: {}, durableObjects: {}, requests: {} } };
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Waits until the job's counts stop moving (its runner's last writes follow `completed`). */
export async function settled(service: Service, jobId: string): Promise<JobStats> {
  let last = "";
  return until(
    async () => {
      const now = JSON.stringify((await stats(service, "GET")).jobs[jobId] ?? null);
      if (now === last) return JSON.parse(now) as JobStats;
      last = now;
      return undefined;
    },
    1000,
    60_000,
    `job ${jobId}'s counts to settle`,
  );
}

export async function measureStatements(service: Service, org: Org, inputs: Inputs, media: MediaServer, runsFor: (short: boolean) => number): Promise<StatementsResult> {
  await stats(service, "DELETE");
  const rows: StatementsRow[] = [];
  for (const c of CASES) {
    const per: JobStats[] = [];
    for (let run = 0; run < runsFor(isShort(c)); run++) {
      const created = await org.createJob(httpJobType(c.type), media.url(inputs[c.input]), c.options);
      await org.waitForJob(created.id, 100, 15 * 60_000);
      per.push(await settled(service, created.id));
    }
    const own = (s: JobStats) => total(s.d1) - (s.d1[CLIENT_READS] ?? 0);
    const sorted = [...per].sort((a, b) => own(a) - own(b));
    const mid = sorted[Math.ceil(sorted.length / 2) - 1]!;
    const { [CLIENT_READS]: _reads, ...bySource } = mid.d1;
    const d1 = own(mid);
    rows.push({
      type: c.type,
      input: c.input,
      short: isShort(c),
      jobs: per.length,
      d1,
      d1Max: own(sorted.at(-1)!),
      bySource,
      clientReads: median(per.map((s) => s.d1[CLIENT_READS] ?? 0)),
      durableObjects: median(per.map((s) => total(s.durableObjects))),
      byNamespace: mid.durableObjects,
      met: d1 <= STATEMENT_GOAL,
    });
    log(`  ${c.type} (${c.input}): ${d1} D1 statements, ${rows.at(-1)!.durableObjects} Durable Object requests per job`);
  }
  return { rows, unattributed: total((await stats(service, "GET")).unattributed.d1) };
}

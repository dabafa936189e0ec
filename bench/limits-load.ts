// Section 5: 500 small jobs from 20 organizations on mixed plans, created in one burst.
// Concurrency per organization is observed twice: on the API (jobs `processing` in each
// organization's list, polled every 500 ms) and at the input server, which holds every
// download for 1 s and counts the downloads of each organization in flight. Neither
// may ever exceed the plan's limit.
import { PLAN_LIMITS } from "../src/limits/plans.ts";
import type { Service } from "../test/support/service.ts";
import type { Inputs, MediaServer } from "./media.ts";
import { log, Org, pool, sleep, type HttpJob } from "./support.ts";

type Plan = keyof typeof PLAN_LIMITS;

export interface OrgLoad {
  slug: string;
  plan: Plan;
  limit: number;
  jobs: number;
  completed: number;
  maxProcessingApi: number;
  maxDownloads: number;
}

export interface LimitsResult {
  orgs: OrgLoad[];
  jobs: number;
  completed: number;
  failed: number;
  /** First createdAt → last completedAt, server clock. */
  seconds: number;
  jobsPerSecond: number;
  createSeconds: number;
  downloadDelayMs: number;
  withinLimits: boolean;
}

export const LIMITS_LOAD = { orgs: 20, jobsPerOrg: 25, downloadDelayMs: 1000, pollMs: 500, deadlineMs: 8 * 60_000 } as const;

const PLANS: Plan[] = ["free", "pro", "enterprise", "free", "pro"];

export async function measureLimits(service: Service, inputs: Inputs, media: MediaServer): Promise<LimitsResult> {
  const orgs: Org[] = [];
  const plans: Plan[] = [];
  for (let i = 0; i < LIMITS_LOAD.orgs; i++) {
    const plan = PLANS[i % PLANS.length]!;
    plans.push(plan);
    orgs.push(await Org.create(service, `bench-load-${String(i + 1).padStart(2, "0")}`, plan, 2));
  }
  const total = LIMITS_LOAD.orgs * LIMITS_LOAD.jobsPerOrg;
  const ids = orgs.map(() => new Set<string>());
  const maxApi = orgs.map(() => 0);
  const latest = orgs.map((): HttpJob[] => []);

  let creating = true;
  const poller = (async () => {
    const deadline = Date.now() + LIMITS_LOAD.deadlineMs;
    while (Date.now() < deadline) {
      await Promise.all(
        orgs.map(async (org, i) => {
          const jobs = await org.listJobs("limit=100");
          latest[i] = jobs;
          maxApi[i] = Math.max(maxApi[i]!, jobs.filter((j) => j.status === "processing").length);
        }),
      );
      const finished = latest.reduce((n, jobs) => n + jobs.filter((j) => j.status !== "queued" && j.status !== "processing").length, 0);
      if (!creating && finished >= total) return;
      await sleep(LIMITS_LOAD.pollMs);
    }
    throw new Error("the limits load did not finish in time");
  })();

  const started = performance.now();
  // In organization order: each organization's 25 jobs arrive within a second or so, so its
  // line fills faster than its slots free and the plan's limit is what holds the jobs back.
  try {
    await pool(total, 24, LIMITS_LOAD.deadlineMs, async (n) => {
      const i = Math.floor(n / LIMITS_LOAD.jobsPerOrg);
      const job = await orgs[i]!.createJob("compress-image", media.slowUrl(inputs.small, orgs[i]!.slug, LIMITS_LOAD.downloadDelayMs), { quality: 70 });
      ids[i]!.add(job.id);
    });
  } finally {
    creating = false;
  }
  const createSeconds = (performance.now() - started) / 1000;
  log(`  ${total} jobs created in ${createSeconds.toFixed(1)} s; waiting for them`);
  await poller;

  const all = latest.flat();
  const completed = all.filter((j) => j.status === "completed");
  const first = Math.min(...all.map((j) => Date.parse(j.createdAt)));
  const last = Math.max(...all.map((j) => Date.parse(j.completedAt ?? j.createdAt)));
  const rows: OrgLoad[] = orgs.map((org, i) => ({
    slug: org.slug,
    plan: plans[i]!,
    limit: PLAN_LIMITS[plans[i]!].concurrentJobs,
    jobs: ids[i]!.size,
    completed: latest[i]!.filter((j) => j.status === "completed").length,
    maxProcessingApi: maxApi[i]!,
    maxDownloads: media.maxInFlight.get(org.slug) ?? 0,
  }));
  const seconds = (last - first) / 1000;
  return {
    orgs: rows,
    jobs: all.length,
    completed: completed.length,
    failed: all.filter((j) => j.status === "failed").length,
    seconds,
    jobsPerSecond: completed.length / seconds,
    createSeconds,
    downloadDelayMs: LIMITS_LOAD.downloadDelayMs,
    withinLimits: rows.every((r) => r.maxProcessingApi <= r.limit && r.maxDownloads <= r.limit),
  };
}

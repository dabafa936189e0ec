// The tunables' relations, and the copies of them that wrangler.toml must hold (read with
// wrangler's own config reader, as `wrangler deploy` reads it). A change to one number that
// breaks a relation fails here, with the reason in the test's name.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../container/src/config.ts";
import { MAX_PROGRESS_PUSHES } from "../../container/src/events.ts";
import { TUNABLES, tunablesFor } from "../../src/lib/tunables.ts";

const { job, runner, pool, deploy, sweep, jobsQueue, limiter, webhooks, readRate } = TUNABLES;
/** The parts of wrangler's Config read here (its own type comes from a package not installed on its own). */
interface WranglerConfig {
  triggers: { crons?: string[] };
  queues: { consumers?: { queue: string; max_retries?: number; dead_letter_queue?: string }[] };
  ratelimits?: { name: string; simple: { limit: number; period: number } }[];
  containers?: { class_name: string; rollout_active_grace_period?: number }[];
}
const config: WranglerConfig = unstable_readConfig({ config: fileURLToPath(new URL("../../wrangler.toml", import.meta.url)) });
const consumer = (queue: string) => config.queues.consumers?.find((c) => c.queue === queue);

/** The period of a cron of the form `*\/N * * * *` (every N minutes), in ms. */
function cronPeriodMs(cron: string): number {
  const minutes = /^\*\/(\d+) \* \* \* \*$/.exec(cron)?.[1];
  if (!minutes) throw new Error(`cron "${cron}" is not of the form */N * * * *; teach this test its period`);
  return Number(minutes) * 60_000;
}

describe("wrangler.toml holds the tunables' values", () => {
  it("runs the sweep cron once per sweep.cronPeriodMs", () => {
    expect(config.triggers.crons).toHaveLength(1);
    expect(cronPeriodMs(config.triggers.crons![0]!)).toBe(sweep.cronPeriodMs);
  });

  it("dead-letters a jobs message after jobsQueue.maxRetries", () => {
    expect(consumer("media-jobs-jobs")).toMatchObject({ max_retries: jobsQueue.maxRetries, dead_letter_queue: "media-jobs-jobs-dlq" });
    expect(consumer("media-jobs-jobs-dlq")).toBeDefined();
  });

  it("dead-letters a webhooks message after the last attempt: max_retries = webhooks.maxAttempts - 1", () => {
    expect(consumer("media-jobs-webhooks")).toMatchObject({ max_retries: webhooks.maxAttempts - 1, dead_letter_queue: "media-jobs-webhooks-dlq" });
    expect(consumer("media-jobs-webhooks-dlq")).toBeDefined();
    expect(webhooks.retryDelaysS).toHaveLength(webhooks.maxAttempts - 1);
  });

  it("dead-letters a store message after the last attempt: max_retries = store.maxAttempts - 1; parts S3 accepts; a lost store resent only after the longest delay", () => {
    const { store } = TUNABLES;
    expect(consumer("media-jobs-store")).toMatchObject({ max_retries: store.maxAttempts - 1, dead_letter_queue: "media-jobs-store-dlq" });
    expect(consumer("media-jobs-store-dlq")).toBeDefined();
    expect(store.retryDelaysS).toHaveLength(store.maxAttempts - 1);
    // S3: every part but the last at least 5 MiB, at most 10,000 parts (80 GB at 8 MiB).
    expect(store.partBytes).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    expect(store.multipartThresholdBytes).toBeGreaterThanOrEqual(store.partBytes);
    expect(store.stalledAfterMs).toBeGreaterThan(Math.max(...store.retryDelaysS) * 1000);
    expect(Math.max(...store.retryDelaysS)).toBeLessThanOrEqual(TUNABLES.webhooks.maxQueueDelayS);
  });

    it("limits reads at readRate, with a period the rate-limiting binding accepts (10 or 60 s)", () => {
    const binding = config.ratelimits?.find((r) => r.name === "READ_RATE_LIMITER");
    expect(binding?.simple).toEqual({ limit: readRate.requests, period: readRate.periodS });
    expect([10, 60]).toContain(readRate.periodS);
  });
});

describe("a deploy's SIGTERM: the processor's drain fits the platform's window", () => {
  it("a busy container gets deploy.rolloutActiveGraceS after a deploy before its SIGTERM: wrangler.toml rollout_active_grace_period", () => {
    const container = config.containers?.find((c) => c.class_name === "ProcessorContainer");
    expect(container?.rollout_active_grace_period).toBe(deploy.rolloutActiveGraceS);
  });

  it("the processor's drain deadline is its DRAIN_TIMEOUT_MS, and leaves time before SIGKILL for the hand-backs' pushes and the exit", () => {
    expect(loadConfig({}, "/tmp").DRAIN_TIMEOUT_MS).toBe(deploy.processorDrainMs);
    // A hand-back's push may take EVENT_TIMEOUT_MS per try; a minute at least is left after the deadline.
    expect(deploy.sigtermWindowMs - deploy.processorDrainMs).toBeGreaterThanOrEqual(Math.max(60_000, 3 * loadConfig({}, "/tmp").EVENT_TIMEOUT_MS));
  });

  it("a draining instance takes no seat until its processor is surely gone: longer than the SIGTERM window", () => {
    expect(pool.drainingMarkMs).toBeGreaterThan(deploy.sigtermWindowMs);
  });

  it("an idle stop's mark outlasts the stop of an idle processor (it exits at once) but not the next idle period by much", () => {
    expect(pool.stoppingMarkMs).toBeGreaterThanOrEqual(10_000);
    expect(pool.stoppingMarkMs).toBeLessThanOrEqual(2 * 60_000);
  });

  it("a job may be handed back, but not forever: maxHandBacks bounds the uncharged attempts", () => {
    expect(job.maxHandBacks).toBeGreaterThanOrEqual(1);
    expect(job.maxHandBacks).toBeLessThanOrEqual(10);
  });
});

describe("the tunables' relations", () => {
  it("the sweep pokes every stuck job before it can fail it: the poke window is at least the cron period", () => {
    // The first sweep to find a lease expired finds it at most one period after it expired.
    expect(sweep.pokeWindowMs).toBeGreaterThanOrEqual(sweep.cronPeriodMs);
  });

  it("the runner's silence check waits for more than one missed heartbeat of the processor, and matches the processor's own", () => {
    expect(runner.silentHeartbeats).toBeGreaterThan(1);
    expect(loadConfig({}, "/tmp").HEARTBEAT_MS).toBe(runner.heartbeatMs);
    // Progress is pushed at least as often as it may be written (the runner, not D1, holds the
    // fine-grained value), and not more often: a push that cannot reach D1 is a request for nothing.
    expect(loadConfig({}, "/tmp").PROGRESS_REPORT_MS).toBe(runner.progressWriteMs);
  });

  it("a job's D1 writes do not grow with its duration: progress is written at a few fixed marks", () => {
    expect(runner.progressMarks.length).toBeLessThanOrEqual(3);
    expect([...runner.progressMarks].sort((a, b) => a - b)).toEqual(runner.progressMarks);
  });

  it("an hour-long job costs at most 600 Durable Object requests (docs/capacity.md: what a job costs), counted from the tunables", () => {
    const hourMs = 3600_000;
    const requests = {
      // The processor's pushes to the runner: a heartbeat per period at most, each whole percent once, the end (sent twice at most).
      events: hourMs / runner.heartbeatMs + MAX_PROGRESS_PUSHES + 2,
      // The pool checks the job's seat once per seatCheckMs: its alarm, and its question to the runner.
      seatChecks: (2 * hourMs) / pool.seatCheckMs,
      // The limiter extends the job's slot before its lease runs out: its alarm, and its question to the runner.
      slotChecks: (2 * hourMs) / (limiter.slotLeaseMs - limiter.slotCheckAheadMs),
      // The sweep pokes the runner once per cron period after job.leaseMs, and the runner asks its processor (through its container's object).
      sweeps: (2 * hourMs) / sweep.cronPeriodMs,
      // Created, admitted, seated, started, ended: 10 per job whatever its length (npm run bench, docs/benchmarks.md section 6), and the start and release through the container's object.
      fixed: 12,
    };
    const total = Object.values(requests).reduce((a, b) => a + b, 0);
    // At the former 3 s heartbeat the heartbeats alone were 1,200.
    expect(total, JSON.stringify(requests)).toBeLessThanOrEqual(600);
  });

  it("the sweep asks a runner about its job only after the attempt had time to be recorded there", () => {
    expect(job.leaseMs).toBeGreaterThan(runner.heartbeatMs * runner.silentHeartbeats);
  });

  it("a job waiting for a pool seat asks the pool again within a slot's check period", () => {
    expect(pool.waitCheckMs).toBeLessThan(limiter.slotLeaseMs);
  });

  it("the limiter asks a slot's runner before the slot's lease runs out, and not at once", () => {
    expect(limiter.slotCheckAheadMs).toBeGreaterThan(0);
    expect(limiter.slotCheckAheadMs).toBeLessThan(limiter.slotLeaseMs / 2);
  });

  it("the limiter still remembers a finished job when the queue's last redelivery of its message arrives", () => {
    let redeliveriesMs = 0;
    for (let attempt = 1; attempt <= jobsQueue.maxRetries; attempt++) redeliveriesMs += Math.min(jobsQueue.maxRetryDelayS, 2 ** attempt) * 1000;
    expect(redeliveriesMs).toBeLessThan(limiter.doneMemoryMs);
  });

  it("every webhook retry delay, jittered up, is one the queue accepts", () => {
    for (const delayS of webhooks.retryDelaysS) expect(delayS * (1 + webhooks.retryJitterRatio)).toBeLessThanOrEqual(webhooks.maxQueueDelayS);
  });

  it("the webhook sweep looks back over more than one cron period for a job whose final delivery is missing", () => {
    // Jobs finished between lookback and stalledAfter ago are repaired; that span must not fall between two sweeps.
    expect(webhooks.missingLookbackMs - webhooks.stalledAfterMs).toBeGreaterThan(sweep.cronPeriodMs);
    expect(webhooks.stalledAfterMs).toBeGreaterThanOrEqual(sweep.cronPeriodMs);
  });
});

describe("a revoked key's open requests", () => {
  it("end within 5 s: a key check comes at most keyCheckMs after the last, and a held read at most checkMaxMs after the one before", () => {
    // The loop checks the key before a read; the longest gap between two checks is a check interval and one sleep.
    expect(TUNABLES.wait.keyCheckMs + TUNABLES.wait.checkMaxMs).toBeLessThanOrEqual(4_000);
    expect(TUNABLES.wait.keyCheckMs).toBeLessThan(TUNABLES.wait.maxS * 1000);
  });
});

describe("the runner and the containers package", () => {
  it("sends an unanswered start again only after a cold container's start would have answered: the package waits 8 s for an instance and 20 s for its port", () => {
    // node_modules/@cloudflare/containers/dist/lib/container.js: TIMEOUT_TO_GET_CONTAINER_MS, TIMEOUT_TO_GET_PORTS_MS.
    expect(runner.startWaitMs).toBeGreaterThan(8_000 + 20_000);
  });

  it("keeps sending a start the platform has no container for longer than a failed call's retries would", () => {
    expect(runner.containerStartDeadlineMs).toBeGreaterThan(runner.failedCallDelayMs * runner.maxCallFailures);
  });
});

describe("a rollout", () => {
  it("lets refused starts wait longer than a busy container's grace and drain, so a rollout's old containers cost no attempt", () => {
    expect(runner.refusedStartDeadlineMs).toBeGreaterThan(deploy.rolloutActiveGraceS * 1000 + deploy.processorDrainMs);
  });
});

describe("TUNABLES_OVERRIDE (tests only; not in wrangler.toml)", () => {
  it("is not set in wrangler.toml: production reads the constants", () => {
    expect((config as { vars?: Record<string, unknown> }).vars?.TUNABLES_OVERRIDE).toBeUndefined();
    expect(tunablesFor({})).toBe(TUNABLES);
    expect(tunablesFor({ TUNABLES_OVERRIDE: "" })).toBe(TUNABLES);
  });

  it("replaces the numbers it names and keeps every other one", () => {
    const tuned = tunablesFor({ TUNABLES_OVERRIDE: JSON.stringify({ runner: { heartbeatMs: 50, silentHeartbeats: 2 } }) });
    expect(tuned.runner).toEqual({ ...TUNABLES.runner, heartbeatMs: 50, silentHeartbeats: 2 });
    expect(tuned.sweep).toBe(TUNABLES.sweep);
    // Parsed once per value.
    expect(tunablesFor({ TUNABLES_OVERRIDE: JSON.stringify({ runner: { heartbeatMs: 50, silentHeartbeats: 2 } }) })).toBe(tuned);
  });

  it("refuses a name that is not a tunable, and a value that is not a positive number", () => {
    expect(() => tunablesFor({ TUNABLES_OVERRIDE: '{"runner":{"heartbeat":50}}' })).toThrow("TUNABLES_OVERRIDE.runner.heartbeat is not a tunable");
    expect(() => tunablesFor({ TUNABLES_OVERRIDE: '{"runner":{"heartbeatMs":"50"}}' })).toThrow("TUNABLES_OVERRIDE.runner.heartbeatMs must be a positive number");
    expect(() => tunablesFor({ TUNABLES_OVERRIDE: '{"runner":{"heartbeatMs":0}}' })).toThrow("must be a positive number");
    expect(() => tunablesFor({ TUNABLES_OVERRIDE: '{"runner":{"progressMarks":[10]}}' })).toThrow("TUNABLES_OVERRIDE.runner.progressMarks cannot be overridden");
    expect(() => tunablesFor({ TUNABLES_OVERRIDE: '{"runner":5}' })).toThrow("TUNABLES_OVERRIDE.runner must be an object");
  });
});

describe("docs/architecture.md", () => {
  /** Every tunable's path (`runner.heartbeatMs`), as the table's first column names it; a table of values (`pool.jobsPerInstanceByType`) is one tunable. */
  const paths = (tunables: object) => Object.entries(tunables).flatMap(([group, values]) => Object.keys(values as object).map((key) => `${group}.${key}`));

  it("has one row per tunable in its Tunables table, and no row for one that is gone", () => {
    const markdown = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");
    const section = markdown.split(/^## Tunables$/m)[1] ?? "";
    const documented = [...section.matchAll(/^\| `([A-Za-z]+\.[A-Za-z]+)` \|/gm)].map((m) => m[1]);
    expect(documented.toSorted()).toEqual(paths(TUNABLES).toSorted());
  });
});

// The soak's figures: latencies, counts and rates from what it observed. Pure.
import { percentile } from "../support.ts";
import type { Observed, Views } from "./observed.ts";
import type { AttemptRow } from "./state.ts";

export interface Figures {
  created: number;
  seconds: number;
  create: Stats;
  createLoaded: Stats;
  listRead: Stats;
  listReadLoaded: Stats;
  loadedAt: number;
  statuses: Record<string, number>;
  failureCodes: Record<string, number>;
  attemptsHistogram: Record<string, number>;
  multiAttempt: number;
  peakProcessing: number;
  meanProcessing: number;
  meanProcessorRunning: number;
  apiSeconds: Stats;
  processorSeconds: Stats;
  apiOverProcessor: Stats;
  endToWebhook: Stats;
  endToWebhookOutsideOutage: Stats;
  scheduleLag: Stats;
  queueWait: Stats;
  retryGap: Stats;
  retried: number;
  longestSilence: { seconds: number; waiting: number };
  burst10s: number;
  webhookBatches: { count: number; ms: Stats; meanSize: number; mostAtOnce: number };
}

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function stats(values: number[]): Stats {
  const n = values.length;
  const mean = n === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / n;
  return { n, p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99), max: n === 0 ? Number.NaN : Math.max(...values), mean };
}

/** How many items have each key. */
export function count<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/** "a: 2, b: 1", by name. */
export function list(r: Record<string, number>): string {
  return (
    Object.entries(r)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ") || "none"
  );
}

export function figuresOf(o: Observed, { ours, jobs, completed, accepted, ended, finals }: Views): Figures {
  const loadedAt = Math.max(1, Math.round(percentile(o.processingTotal, 75) / 2));

  // Time at the API against time in the processor, per completed job.
  const procMs = new Map<string, number>();
  for (const a of o.processorAttempts) {
    const id = a.pid.slice(0, a.pid.lastIndexOf("."));
    procMs.set(id, (procMs.get(id) ?? 0) + a.ms);
  }
  const apiMs = completed.map((j) => j.completed_at! - j.created_at);
  const pairs = completed.filter((j) => (procMs.get(j.id) ?? 0) > 0).map((j) => ({ api: j.completed_at! - j.created_at, proc: procMs.get(j.id)! }));

  // Webhooks: each job's first accepted delivery against its end.
  const e2w = ended.filter((j) => accepted.has(j.id)).map((j) => ({ job: j, ms: accepted.get(j.id)![0]!.at - j.completed_at! }));
  const inOutage = (t: number) => o.outage !== undefined && t >= o.outage.from - 1_000 && t < o.outage.until + 6_000;
  const attemptsOf = new Map<string, AttemptRow[]>();
  for (const a of o.attempts) attemptsOf.set(a.delivery_id, [...(attemptsOf.get(a.delivery_id) ?? []), a].sort((x, y) => x.attempt - y.attempt));
  const scheduleLag: number[] = [];
  const queueWait: number[] = [];
  const retryGap: number[] = [];
  for (const j of ended) {
    const d = finals.get(j.id);
    if (!d) continue;
    scheduleLag.push(d.created_at - j.completed_at!);
    const list = attemptsOf.get(d.id) ?? [];
    if (list[0]) queueWait.push(list[0].at - d.created_at);
    if (list[0] && list[1]) retryGap.push(list[1].at - (list[0].at + list[0].latency_ms));
  }
  const receiptTimes = o.receipts.map((r) => r.at).sort((a, b) => a - b);
  const firstAccepted = new Map([...accepted].map(([id, rs]) => [id, rs[0]!.at]));
  let silence = { seconds: 0, waiting: 0 };
  for (let i = 1; i < receiptTimes.length; i++) {
    const [a, b] = [receiptTimes[i - 1]!, receiptTimes[i]!];
    const waiting = ended.filter((j) => j.completed_at! <= a && (firstAccepted.get(j.id) ?? Infinity) >= b).length;
    if (waiting > 0 && (b - a) / 1000 > silence.seconds) silence = { seconds: (b - a) / 1000, waiting };
  }
  let burst10s = 0;
  for (let i = 0, k = 0; i < receiptTimes.length; i++) {
    while (receiptTimes[i]! - receiptTimes[k]! > 10_000) k++;
    burst10s = Math.max(burst10s, i - k + 1);
  }
  const webhookBatches = o.queueBatches.filter((b) => b.queue === "media-jobs-webhooks");

  return {
    created: ours.size,
    seconds: (o.endedAt - o.startedAt) / 1000,
    create: stats(o.submitted.map((s) => s.createMs)),
    createLoaded: stats(o.submitted.filter((s) => s.processingAtCreate >= loadedAt).map((s) => s.createMs)),
    listRead: stats(o.listReads.map((r) => r.ms)),
    listReadLoaded: stats(o.listReads.filter((r) => r.processing >= loadedAt).map((r) => r.ms)),
    loadedAt,
    statuses: count(jobs, (j) => j.status),
    failureCodes: count(jobs.filter((j) => j.status === "failed"), (j) => j.error_code ?? "?"),
    attemptsHistogram: count(jobs, (j) => String(j.attempt)),
    multiAttempt: jobs.filter((j) => j.attempt > 1).length,
    peakProcessing: Math.max(0, ...o.processingTotal),
    meanProcessing: stats(o.processingTotal).mean,
    meanProcessorRunning: stats(o.processorRunning).mean,
    apiSeconds: stats(apiMs.map((ms) => ms / 1000)),
    processorSeconds: stats(pairs.map((p) => p.proc / 1000)),
    apiOverProcessor: stats(pairs.map((p) => p.api / p.proc)),
    endToWebhook: stats(e2w.map((e) => e.ms / 1000)),
    endToWebhookOutsideOutage: stats(e2w.filter((e) => !inOutage(e.job.completed_at!)).map((e) => e.ms / 1000)),
    scheduleLag: stats(scheduleLag.map((ms) => ms / 1000)),
    queueWait: stats(queueWait.map((ms) => ms / 1000)),
    retryGap: stats(retryGap.map((ms) => ms / 1000)),
    retried: retryGap.length,
    longestSilence: silence,
    burst10s,
    webhookBatches: {
      count: webhookBatches.length,
      ms: stats(webhookBatches.map((b) => b.ms)),
      meanSize: stats(webhookBatches.map((b) => b.total)).mean,
      mostAtOnce: mostAtOnce(webhookBatches.map((b) => [b.at - b.ms, b.at])),
    },
  };
}

/** The most intervals [start, end) that overlap at one instant. */
export function mostAtOnce(intervals: [number, number][]): number {
  const edges = intervals.flatMap(([start, end]): [number, number][] => [[start, 1], [end, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (now += step));
  return most;
}

// From what the soak observed to its figures and its checks. Pure: run.ts gathers, this
// judges, report.ts writes.
import { outcomeMismatch } from "../../test/support/corpus.ts";
import { percentile } from "../support.ts";
import type { ProcessorAttempt } from "./processor.ts";
import type { Receipt } from "./receiver.ts";
import type { Expectation } from "./sources.ts";
import type { AttemptRow, DeliveryRow, JobRowLite } from "./state.ts";

export interface Submitted {
  n: number;
  org: string;
  source: string;
  expect: Expectation;
  /** The job id, when it was created. */
  id?: string;
  /** HTTP status of the create. */
  status: number;
  /** The create's error code and the field paths in its details, when it was refused. */
  error?: { code: string; paths: string[] };
  createMs: number;
  /** Jobs `processing` (all organizations) at the last sample before the create. */
  processingAtCreate: number;
}

export interface Kill {
  at: number;
  downMs: number;
  /** Jobs `processing` just before the kill: the only ones allowed to lose an attempt to it. */
  inFlight: string[];
}

export interface Observed {
  shape: { jobs: number; orgs: number; kills: number; outageMs: number; extraShare: number };
  plans: Map<string, { slug: string; plan: string; limit: number }>;
  submitted: Submitted[];
  /** Highest `processing` count seen per organization id, and each sample above the limit. */
  maxProcessing: Map<string, number>;
  excess: { at: number; org: string; count: number; limit: number }[];
  /** Jobs `processing` in D1 without a live slot at their limiter, per sample. */
  unheld: { at: number; org: string; job: string }[];
  /** Samples in which no limiter storage could be read (the slot check is then not measured). */
  slotsUnreadable: number;
  samples: number;
  /** Processor /status `running` while jobs were in flight (undefined while it was down). */
  processorRunning: number[];
  /** Total `processing` in D1, same samples. */
  processingTotal: number[];
  listReads: { ms: number; status: number; processing: number }[];
  kills: Kill[];
  outage: { from: number; until: number } | undefined;
  jobs: JobRowLite[];
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  objectKeys: string[];
  receipts: Receipt[];
  processorAttempts: ProcessorAttempt[];
  processorLeftovers: string[];
  queueBatches: { at: number; queue: string; acked: number; total: number; ms: number }[];
  startedAt: number;
  endedAt: number;
  timedOut: string[];
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

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

function count<T>(items: T[], key: (item: T) => string): Record<string, number> {
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

const FINAL = new Set(["completed", "failed", "cancelled"]);

/** A damaged file's job must end this soon after its (last) start, as in the processor's corpus test. */
export const DAMAGED_DEADLINE_MS = 60_000;

export function analyse(o: Observed): { figures: Figures; checks: Check[] } {
  const ours = new Map(o.submitted.filter((s) => s.id).map((s) => [s.id!, s]));
  const jobs = o.jobs.filter((j) => ours.has(j.id));
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const loadedAt = Math.max(1, Math.round(percentile(o.processingTotal, 75) / 2));

  // Time at the API against time in the processor, per completed job.
  const procMs = new Map<string, number>();
  for (const a of o.processorAttempts) {
    const id = a.pid.slice(0, a.pid.lastIndexOf("."));
    procMs.set(id, (procMs.get(id) ?? 0) + a.ms);
  }
  const completed = jobs.filter((j) => j.status === "completed" && j.completed_at !== null);
  const apiMs = completed.map((j) => j.completed_at! - j.created_at);
  const pairs = completed.filter((j) => (procMs.get(j.id) ?? 0) > 0).map((j) => ({ api: j.completed_at! - j.created_at, proc: procMs.get(j.id)! }));

  // Webhooks: each job's first accepted delivery against its end.
  const accepted = new Map<string, Receipt[]>();
  for (const r of o.receipts) if (r.jobId && r.answered < 300) accepted.set(r.jobId, [...(accepted.get(r.jobId) ?? []), r]);
  const ended = jobs.filter((j) => j.completed_at !== null);
  const e2w = ended.filter((j) => accepted.has(j.id)).map((j) => ({ job: j, ms: accepted.get(j.id)![0]!.at - j.completed_at! }));
  const inOutage = (t: number) => o.outage !== undefined && t >= o.outage.from - 1_000 && t < o.outage.until + 6_000;
  const finals = new Map(o.deliveries.filter((d) => d.trigger === "final").map((d) => [d.job_id, d]));
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

  const figures: Figures = {
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

  const checks: Check[] = [];
  const check = (name: string, bad: string[], ok: string) =>
    checks.push({ name, pass: bad.length === 0, detail: bad.length === 0 ? ok : `${bad.length}: ${bad.slice(0, 5).join("; ")}${bad.length > 5 ? "; …" : ""}` });

  const creates = o.submitted.filter((s) => !("rejected" in s.expect));
  check(
    "every create answered as its source expects",
    creates.filter((s) => s.status !== 201).map((s) => `job ${s.n} (${s.source}): HTTP ${s.status}${s.error ? ` ${s.error.code}` : ""}`),
    `${creates.length} creates`,
  );
  const hostile = o.submitted.flatMap((s) => ("rejected" in s.expect ? [{ s, e: s.expect }] : []));
  check(
    "every hostile request refused with its status, code and field path",
    hostile
      .filter(({ s, e }) => s.status !== e.rejected || s.error?.code !== e.code || (e.path !== undefined && !s.error.paths.includes(e.path)) || s.id !== undefined)
      .map(({ s, e }) => `job ${s.n} (${s.source}): HTTP ${s.status} ${s.error?.code ?? "no error"}${s.error?.paths.length ? ` at ${s.error.paths.join(", ")}` : ""}, expected ${e.rejected} ${e.code}${e.path ? ` at ${e.path}` : ""}`),
    hostile.length === 0 ? "none sent" : `${hostile.length} refused: ${list(count(hostile, ({ s }) => `${s.status} ${s.error?.code}`))}`,
  );
  check(
    "every job ended",
    [...ours.keys()].filter((id) => !FINAL.has(byId.get(id)?.status ?? "missing")).map((id) => `${id} is ${byId.get(id)?.status ?? "missing"}`),
    `${ours.size} jobs, each completed, failed or cancelled`,
  );
  check(
    "every job ended as its source expects",
    jobs
      .filter((j) => FINAL.has(j.status) && !("corpus" in ours.get(j.id)!.expect))
      .filter((j) => {
        const e = ours.get(j.id)!.expect;
        return "completed" in e ? j.status !== "completed" : "failed" in e ? !(j.status === "failed" && e.failed.includes(j.error_code as never)) : true;
      })
      .map((j) => `${j.id} (${ours.get(j.id)!.source}) ${j.status}${j.error_code ? ` ${j.error_code}: ${j.error_message}` : ""}`),
    "normal jobs completed; the missing input failed with its code",
  );
  const damaged = [...ours].flatMap(([id, s]) => ("corpus" in s.expect ? [{ id, s, outcome: s.expect.corpus, j: byId.get(id) }] : []));
  check(
    `every damaged file ended as the corpus expects, within ${DAMAGED_DEADLINE_MS / 1000} s of its start`,
    damaged.flatMap(({ id, s, outcome, j }) => {
      if (!j || !FINAL.has(j.status)) return [`${id} (${s.source}) is ${j?.status ?? "missing"}`];
      const result = j.result ? (JSON.parse(j.result) as unknown) : undefined;
      const why = outcomeMismatch(outcome, { state: j.status, error: j.error_code ? { code: j.error_code, message: j.error_message ?? "" } : undefined, result });
      const ms = j.completed_at! - (j.started_at ?? j.created_at);
      return [...(why ? [`${id} (${s.source}): ${why}`] : []), ...(ms > DAMAGED_DEADLINE_MS ? [`${id} (${s.source}) ended ${(ms / 1000).toFixed(1)} s after its start`] : [])];
    }),
    damaged.length === 0
      ? "none sent"
      : `${damaged.length} jobs from ${new Set(damaged.map((d) => d.s.source)).size} files: ${list(count(damaged, (d) => (d.j?.status === "failed" ? d.j.error_code ?? "?" : d.j?.status ?? "missing")))}`,
  );
  const killsOf = (id: string) => o.kills.filter((k) => k.inFlight.includes(id)).length;
  check(
    "no attempt lost but those running at a kill",
    jobs.filter((j) => j.attempt - 1 > killsOf(j.id)).map((j) => `${j.id}: ${j.attempt} attempts, in flight at ${killsOf(j.id)} kill(s)`),
    `extra attempts only for jobs in flight at a kill (${figures.multiAttempt} jobs)`,
  );
  check(
    "concurrency within the plan at every sample",
    o.excess.map((e) => `${o.plans.get(e.org)?.slug ?? e.org} (${o.plans.get(e.org)?.plan}) had ${e.count} processing, limit ${e.limit}, at +${((e.at - o.startedAt) / 1000).toFixed(1)} s`),
    `${o.samples} samples of every organization`,
  );
  const unheld = new Map<string, { org: string; first: number; samples: number }>();
  for (const u of o.unheld) {
    const seen = unheld.get(u.job) ?? { org: u.org, first: u.at, samples: 0 };
    unheld.set(u.job, { ...seen, samples: seen.samples + 1 });
  }
  check(
    "every processing job holds its slot at every sample",
    [
      ...(o.slotsUnreadable > 0 ? [`not measured in ${o.slotsUnreadable} samples: no OrgLimiter storage with a slots table under the state directory`] : []),
      ...[...unheld].map(([job, u]) => `${job} of ${o.plans.get(u.org)?.slug ?? u.org} (${o.plans.get(u.org)?.plan}) processing without a live slot in ${u.samples} samples from +${((u.first - o.startedAt) / 1000).toFixed(1)} s`),
    ],
    "each job processing in D1 had an unexpired slot at its organization's limiter",
  );
  const webhookBad: string[] = [];
  for (const r of o.receipts) if (r.invalid) webhookBad.push(`invalid signature on ${r.webhookId}: ${r.invalid}`);
  for (const j of ended) {
    const got = accepted.get(j.id) ?? [];
    if (got.length !== 1) webhookBad.push(`${j.id}: ${got.length} accepted deliveries`);
    else if (got[0]!.status !== j.status) webhookBad.push(`${j.id}: delivered status ${got[0]!.status}, job is ${j.status}`);
    const d = finals.get(j.id);
    if (d?.status !== "succeeded") webhookBad.push(`${j.id}: final delivery ${d ? d.status : "missing"}`);
  }
  check("exactly one successful final webhook per job, every signature valid", webhookBad, `${ended.length} jobs, ${o.receipts.length} requests received`);
  const orphans: string[] = [];
  const allJobs = new Map(o.jobs.map((j) => [j.id, j]));
  const deliveryIds = new Set(o.deliveries.map((d) => d.id));
  for (const key of o.objectKeys) {
    const id = key.split("/")[1] ?? "";
    const job = allJobs.get(id);
    if (!job) orphans.push(`R2 ${key}: no such job`);
    else if (job.status !== "completed") orphans.push(`R2 ${key}: job is ${job.status}`);
  }
  const keys = new Set(o.objectKeys);
  for (const j of completed) for (const name of outputNames(j.result)) if (!keys.has(`outputs/${j.id}/${name}`)) orphans.push(`${j.id}: output ${name} missing from R2`);
  for (const d of o.deliveries) if (!allJobs.has(d.job_id)) orphans.push(`delivery ${d.id}: no job ${d.job_id}`);
  for (const a of o.attempts) if (!deliveryIds.has(a.delivery_id)) orphans.push(`webhook attempt ${a.delivery_id}#${a.attempt}: no delivery`);
  const orgIds = new Set(o.plans.keys());
  for (const j of o.jobs) if (orgIds.has(j.org_id) && !ours.has(j.id)) orphans.push(`job ${j.id}: created but never answered to the client`);
  check("no orphaned D1 row or R2 object", orphans, `${o.objectKeys.length} R2 objects, ${o.deliveries.length} deliveries, ${o.attempts.length} attempts`);
  check(
    "create latency p95 under 300 ms",
    figures.create.p95 < 300 ? [] : [`p95 ${figures.create.p95.toFixed(0)} ms (p50 ${figures.create.p50.toFixed(0)} ms, max ${figures.create.max.toFixed(0)} ms)`],
    `p95 ${figures.create.p95.toFixed(0)} ms`,
  );
  if (o.timedOut.length > 0) checks.push({ name: "finished before its deadlines", pass: false, detail: o.timedOut.join("; ") });
  return { figures, checks };
}

/** The most intervals [start, end) that overlap at one instant. */
export function mostAtOnce(intervals: [number, number][]): number {
  const edges = intervals.flatMap(([start, end]): [number, number][] => [[start, 1], [end, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (now += step));
  return most;
}

/** Output file names in a stored result: every string field named `url`. */
function outputNames(result: string | null): string[] {
  if (!result) return [];
  const names: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) k === "url" && typeof x === "string" ? names.push(x) : walk(x);
  };
  walk(JSON.parse(result));
  return names;
}

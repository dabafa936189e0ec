// The soak's checks: each a rule every run must hold (every job ended, within its plan,
// one webhook each, nothing orphaned…), judged from what it observed. Pure.
import { outputKey } from "../../src/files/r2-keys.ts";
import { outcomeMismatch } from "../../test/support/corpus.ts";
import { count, list, type Figures } from "./figures.ts";
import type { Observed, Views } from "./observed.ts";

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
  /** A timing goal, not a rule of behaviour: `--timings-not-judged` (CI) reports it without failing the run. */
  timing?: true;
}

const FINAL = new Set(["completed", "failed", "cancelled"]);

/** A damaged file's job must end this soon after its (last) start, as in the processor's corpus test. */
export const DAMAGED_DEADLINE_MS = 60_000;

export function checksOf(o: Observed, { ours, jobs, byId, completed, accepted, ended, finals }: Views, figures: Figures): Check[] {
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
  for (const j of completed) for (const name of outputNames(j.result)) if (!keys.has(outputKey(j.id, name))) orphans.push(`${j.id}: output ${name} missing from R2`);
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
  checks.at(-1)!.timing = true;
  if (o.timedOut.length > 0) checks.push({ name: "finished before its deadlines", pass: false, detail: o.timedOut.join("; ") });
  return checks;
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

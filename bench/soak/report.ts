// The soak's report: printed after every run; a full run also rewrites the measured part
// of docs/reliability.md (between the soak:begin and soak:end markers), leaving the
// hand-written analysis around it alone.
import { readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Check } from "./checks.ts";
import { list, type Figures, type Stats } from "./figures.ts";
import type { Observed } from "./observed.ts";

const DOC = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "docs/reliability.md");
const BEGIN = "<!-- soak:begin (written by npm run soak; edits here are lost) -->";
const END = "<!-- soak:end -->";

const num = (n: number, digits = 0) => (Number.isNaN(n) ? "–" : n.toFixed(digits));
const ms = (s: Stats) => `p50 ${num(s.p50)} ms, p95 ${num(s.p95)} ms, p99 ${num(s.p99)} ms, max ${num(s.max)} ms (n = ${s.n})`;
const sec = (s: Stats, digits = 1) => `p50 ${num(s.p50, digits)} s, p95 ${num(s.p95, digits)} s, max ${num(s.max, digits)} s (n = ${s.n})`;

export function markdown(shape: Observed["shape"], f: Figures, checks: Check[], o: Observed): string {
  const failed = checks.filter((c) => !c.pass).length;
  const plans = [...o.plans.values()];
  const perPlan = (["free", "pro", "enterprise"] as const)
    .map((plan) => {
      const ids = [...o.plans].filter(([, p]) => p.plan === plan).map(([id]) => id);
      if (ids.length === 0) return undefined;
      const max = Math.max(...ids.map((id) => o.maxProcessing.get(id) ?? 0));
      return `${plan} (limit ${o.plans.get(ids[0]!)!.limit}, ${ids.length} orgs): highest ${max}`;
    })
    .filter(Boolean)
    .join("; ");
  return [
    `Run of ${new Date(o.startedAt).toISOString().slice(0, 16).replace("T", " ")} UTC on ${cpus().length} CPUs (shared): ` +
      `${shape.jobs} jobs from ${shape.orgs} organizations (${plans.filter((p) => p.plan === "free").length} free, ` +
      `${plans.filter((p) => p.plan === "pro").length} pro, ${plans.filter((p) => p.plan === "enterprise").length} enterprise), ` +
      `processor killed ${o.kills.length}× (${o.kills.map((k) => `${k.inFlight.length} jobs in flight`).join(", ") || "–"}), ` +
      `webhook receiver answering 503 for ${shape.outageMs / 1000} s; ${num(f.seconds)} s in all.`,
    "",
    `**Checks: ${checks.length - failed} passed, ${failed} failed.**`,
    "",
    "| Check | Result | Detail |",
    "| --- | --- | --- |",
    ...checks.map((c) => `| ${c.name} | ${c.pass ? "pass" : "**FAIL**"} | ${c.detail.replaceAll("|", "\\|")} |`),
    "",
    "| Figure | Value |",
    "| --- | --- |",
    `| Jobs by status | ${list(f.statuses)} |`,
    `| Failure codes | ${list(f.failureCodes)} |`,
    `| Attempts per job (attempts: jobs) | ${list(f.attemptsHistogram)}; ${f.multiAttempt} jobs needed more than one |`,
    `| Create latency | ${ms(f.create)} |`,
    `| Create latency with ≥ ${f.loadedAt} processing | ${ms(f.createLoaded)} |`,
    `| List reads (GET /v1/jobs?limit=50) | ${ms(f.listRead)} |`,
    `| List reads with ≥ ${f.loadedAt} processing | ${ms(f.listReadLoaded)} |`,
    `| Jobs processing (D1), while jobs were in flight | peak ${f.peakProcessing}, mean ${num(f.meanProcessing, 1)} |`,
    `| Jobs running in the processor, same samples | mean ${num(f.meanProcessorRunning, 1)} |`,
    `| Highest processing per organization | ${perPlan} |`,
    `| Job time at the API (created → ended) | ${sec(f.apiSeconds)} |`,
    `| Job time in the processor (its attempts) | ${sec(f.processorSeconds, 2)} |`,
    `| API time ÷ processor time, per job | p50 ${num(f.apiOverProcessor.p50, 1)}×, p95 ${num(f.apiOverProcessor.p95, 1)}× |`,
    `| Job end → webhook accepted | ${sec(f.endToWebhook)} |`,
    `| … for jobs that ended away from the outage | ${sec(f.endToWebhookOutsideOutage)} |`,
    `| … of which: job end → delivery scheduled | ${sec(f.scheduleLag, 2)} |`,
    `| … of which: scheduled → first attempt | ${sec(f.queueWait)} |`,
    `| Retried deliveries: 1st → 2nd attempt (asked for 4.5–5.5 s) | ${sec(f.retryGap)}; ${f.retried} retried |`,
    `| Longest time with no webhook sent while jobs waited for theirs | ${num(f.longestSilence.seconds, 1)} s (${f.longestSilence.waiting} jobs waiting) |`,
    `| Most webhooks received in 10 s | ${f.burst10s} |`,
    `| Webhook queue batches (Miniflare) | ${f.webhookBatches.count} batches, mean ${num(f.webhookBatches.meanSize, 1)} messages, consumer time ${ms(f.webhookBatches.ms)}; at most ${f.webhookBatches.mostAtOnce} in flight at once |`,
    `| Processor work directories left | ${o.processorLeftovers.length} |`,
  ].join("\n");
}

export function printReport(shape: Observed["shape"], f: Figures, checks: Check[], o: Observed): void {
  process.stdout.write(`\n${markdown(shape, f, checks, o)}\n\n`);
}

export async function writeReliabilityDoc(shape: Observed["shape"], f: Figures, checks: Check[], o: Observed): Promise<void> {
  const current = await readFile(DOC, "utf8").catch(() => `# Reliability\n\n${BEGIN}\n${END}\n`);
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  const section = `${BEGIN}\n${markdown(shape, f, checks, o)}\n${END}`;
  const next = start >= 0 && end > start ? current.slice(0, start) + section + current.slice(end + END.length) : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(DOC, next);
}

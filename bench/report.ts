// Writes docs/benchmarks.md (tables) and docs/benchmarks.png (chart.ts's SVG, rendered by
// sharp) from one run's measurements. Nothing here judges a timing: the
// numbers are reported as measured, with the machine and its load beside them.
import { fanoutSection, type FanoutResult } from "./fanout.ts";
import { ladderFanoutSection, type LadderFanoutResult } from "./ladder-fanout.ts";
import { largeInputsSection, type LargeInputsResult } from "./large-inputs.ts";
import { playableSection, type PlayableResult } from "./playable.ts";
import { readFile, writeFile } from "node:fs/promises";
import sharp from "sharp";
import { CREATE_GOAL, type ApiResult } from "./api-load.ts";
import type { DispatchResult } from "./dispatch.ts";
import type { LimitsResult } from "./limits-load.ts";
import { chartSvg } from "./chart.ts";
import type { Av1Result } from "./av1.ts";
import type { CostResult } from "./cost.ts";
import { addedMs, find, mb, ms, table } from "./format.ts";
import { INPUT_DESCRIPTIONS } from "./media.ts";
import { GOALS, type OverheadRow } from "./overhead.ts";
import { BENCH_SERVICE } from "./support.ts";
import { STATEMENT_GOAL, type StatementsResult } from "./statements.ts";
import type { QualityRow } from "./quality.ts";

export interface Machine {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  versions: Record<string, string>;
}

export interface Results {
  machine: Machine;
  totalSeconds: number;
  /** Sections during which another test run (vitest) was seen on the machine. */
  noisy: string[];
  inputs: Record<string, { bytes: number }>;
  /** Sections not run this time (`--only`) are kept from the previous results, or absent. */
  overhead?: OverheadRow[];
  av1?: Av1Result;
  quality?: QualityRow[];
  api?: ApiResult;
  dispatch?: DispatchResult;
  limits?: LimitsResult;
  statements?: StatementsResult;
  cost?: CostResult;
  largeInputs?: LargeInputsResult;
  fanout?: FanoutResult;
  ladderFanout?: LadderFanoutResult;
  playable?: PlayableResult;
  /** When each section was measured, if not in this run's first line. */
  measuredAt?: Record<string, string>;
  /** Hand-written analysis, appended as is. */
  analysis: string;
}

const yesNo = (met: boolean | null) => (met === null ? "–" : met ? "yes" : "**no**");

function section(r: Results, key: keyof typeof SECTION_NAMES, render: () => string): string {
  const measured = r.measuredAt?.[key];
  const note = measured && measured !== r.machine.date ? `\n\n_Measured ${measured}, in an earlier run than the rest of this page._` : "";
  return r[key] ? render() + note : `## ${SECTION_NAMES[key]}\n\nNot measured yet: \`npm run bench -- --only ${key}\`.`;
}

export const SECTION_NAMES = {
  overhead: "1. Processing overhead: service against the tool run directly",
  av1: "1b. AV1: a 1080p encode with SVT-AV1 against its ffmpeg command",
  quality: "2. Compression: bytes and quality per preset",
  api: "3. API throughput: the service beside a bare Hono Worker",
  dispatch: "4. Dispatch latency: 201 to `processing`, idle processor",
  limits: "5. Limits under load",
  statements: "6. D1 statements and Durable Object requests per job",
  cost: "6b. A long job's Durable Object requests, and a 1080p encode's CPU time",
  largeInputs: "8. Large inputs: read as the job needs them",
  fanout: "9. A long encode across seats: chunks, audio and stitch against one seat",
  ladderFanout: "9b. A long videoAdaptive's renditions across seats",
  playable: "10. Playable early: a long videoAdaptive job's time to playable",
} as const;

export function markdown(r: Results): string {
  const m = r.machine;
  const out: string[] = [];
  const inputRows = (Object.keys(INPUT_DESCRIPTIONS) as (keyof typeof INPUT_DESCRIPTIONS)[])
    .filter((k) => r.inputs[k])
    .map((k) => [k, mb(r.inputs[k]!.bytes), INPUT_DESCRIPTIONS[k] + (k === "small" ? " (sections 3–5)" : "")]);
  out.push(`# Benchmarks

How close the service gets to running ffmpeg, sharp and Ghostscript by hand, what each
preset gives for its bytes, what the API, dispatch and limits cost, and how many D1
statements and Durable Object requests a job takes. Produced by
\`npm run bench\` (\`bench/\`), which starts the whole service locally the way \`npm run dev\`
does (processor as a Node process, Worker under \`wrangler dev\`), generates its own media,
and rewrites this page and [benchmarks.png](benchmarks.png). \`npm run bench -- --only overhead,statements\`
runs some sections (overhead, av1, quality, api, dispatch, limits, statements, cost) and keeps the others' last results.
Nothing here is asserted by a test; the numbers are one run's, on the machine below. The
goals are issue 16's.

- Run: ${m.date}, ${Math.round(r.totalSeconds / 60)} min in all.
- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB RAM, ${m.os}.
- Versions: ${Object.entries(m.versions).map(([k, v]) => `${k} ${v}`).join(", ")}.
- ${r.noisy.length ? `**Noisy:** other test runs (vitest) shared the ${m.cpus} cores during: ${r.noisy.join(", ")}. Those sections' timings are inflated and vary between runs; ratios measured with service and direct runs interleaved suffer least.` : "No other test run (vitest) was seen on the machine during the run."}
- Local only: the Worker runs in workerd under \`wrangler dev\` (Miniflare's D1, R2, Queues and Durable Objects on local disk), and the processor in the same Node process as the load generator, with ${BENCH_SERVICE.vars.PROCESSOR_CONCURRENCY} processor seats (\`PROCESSOR_CONCURRENCY\`); the Worker is the production one wrapped by \`bench/worker/index.ts\` (the counts of section 6). Production numbers differ; the proportions are what this page is for.

![Overhead, API throughput, dispatch latency and concurrency per organization](benchmarks.png)

## Inputs

Generated on first run into \`bench/.media/\` (git-ignored) and served to the service over loopback HTTP by a server that answers Range requests, as object stores, CDNs and web servers do (section 8 also measures an origin that ignores Range).

${table(["what", "bytes", "made of"], inputRows)}

${section(r, "overhead", () => overheadSection(r.overhead!))}

${section(r, "av1", () => av1Section(r.av1!, r.inputs.video?.bytes))}

${section(r, "quality", () => qualitySection(r.quality!))}

${section(r, "api", () => apiSection(r.api!))}

${section(r, "dispatch", () => dispatchSection(r.dispatch!))}

${section(r, "limits", () => limitsSection(r.limits!))}

${section(r, "statements", () => statementsSection(r.statements!))}

${section(r, "cost", () => costSection(r.cost!))}

${section(r, "largeInputs", () => largeInputsSection(r.largeInputs!, SECTION_NAMES.largeInputs))}

${section(r, "fanout", () => fanoutSection(r.fanout!, SECTION_NAMES.fanout))}

${section(r, "ladderFanout", () => ladderFanoutSection(r.ladderFanout!, SECTION_NAMES.ladderFanout))}
${section(r, "playable", () => playableSection(r.playable!, SECTION_NAMES.playable))}

${r.analysis}
`);
  return out.join("\n");
}

function av1Section(a: Av1Result, inputBytes: number | undefined): string {
  const o = a.row;
  const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;
  const ofInput = (bytes: number) => (inputBytes ? ` (${((bytes / inputBytes) * 100).toFixed(1)} % of the input)` : "");
  return `## ${SECTION_NAMES.av1}

\`compressVideo\` with \`${JSON.stringify(o.options)}\` (${a.setting}; docs/job-types.md, "AV1", says why those)
on the 1080p 30 s clip, measured as in section 1: "direct" is ffmpeg with the processor's own
\`buildArgs\` on the local file, "server" the job's \`completedAt − createdAt\`; ${o.runs} runs each, alternating, medians.

${table(["direct", "server", "client", "added", "ratio", "output", "x264 medium (section 1)"], [[
  seconds(o.directMs),
  seconds(o.serverMs),
  seconds(o.serviceMs),
  addedMs(o.extraMs),
  `${o.ratio.toFixed(2)}×`,
  mb(a.outputBytes) + ofInput(a.outputBytes),
  a.h264Bytes === null ? "–" : mb(a.h264Bytes) + ofInput(a.h264Bytes),
]])}

That is ${(o.directMs / 30_000).toFixed(1)} s of encoding per second of 1080p video here. Every run, ms (direct / server): ${o.directAll.map(Math.round).join(", ")} / ${o.serverAll.map(Math.round).join(", ")}.`;
}

function overheadSection(rows: OverheadRow[]): string {
  return `## ${SECTION_NAMES.overhead}

Each job type on a long input and on a short one (issue 16's short jobs: a 5.6 s clip → audio,
a thumbnail of it, a 2-page PDF, a 1280×960 image → WebP). "server" is the job's own
\`completedAt − createdAt\`: it includes the reads from the loopback server (the ranges a seek needs, or the whole file as the tool works), probing, the
queue, the runner and the processor's upload of its outputs to R2. "added" and "ratio" compare it with "direct":
the same tool with the arguments the processor's own \`buildArgs\` (or, for images, its sharp
pipeline and \`encoderOptions()\`) produce, on the local file, probe done beforehand.
"client" is what the bench saw: \`POST /v1/jobs\` until a \`GET /v1/jobs/:id\` (every 100 ms, then 2 % of the time waited, at most 1 s, so that the bench's own reads do not take the cores the tool runs on)
says \`completed\`. "of which probes" is the processor's own tool calls around the
transformation (ffprobe of input and output; sharp's metadata read; Ghostscript's page count
of input and output), timed alone; for \`extractAudio\`, a numeric \`videoThumbnail\` and the MP3 of
\`videoExtraction\` the input's ffprobe runs beside ffmpeg's own start, so it adds to the job's
time only when it is the slower of the two. Median of the runs; service and direct runs alternate.
Goals: at most +${GOALS.shortExtraMs} ms added for each short job type (audio, thumbnail, PDF, image); the long video within ${GOALS.longVideoRatio.toFixed(2)}× of raw ffmpeg.

${table(["type", "input", "options", "runs", "direct", "server", "client", "added", "of which probes", "ratio", "goal", "met"], rows.map((o) => [
  `\`${o.type}\``,
  o.input,
  `\`${JSON.stringify(o.options)}\``,
  o.runs,
  ms(o.directMs),
  ms(o.serverMs),
  ms(o.serviceMs),
  addedMs(o.extraMs),
  ms(o.extrasMs),
  `${o.ratio.toFixed(2)}×`,
  o.goal,
  yesNo(o.met),
]))}

Every run, ms (direct / server):
${rows.map((o) => `- \`${o.type}\` (${o.input}): ${o.directAll.map(Math.round).join(", ")} / ${(o.serverAll ?? o.serviceAll).map(Math.round).join(", ")}`).join("\n")}`;
}

function qualitySection(quality: QualityRow[]): string {
  return `## ${SECTION_NAMES.quality}

Scores compare the output with the input (for video, the input is itself a lossy CRF 18
encode, so PSNR/SSIM measure the loss added by the service). This ffmpeg (5.1, Debian) is
built without libvmaf, so there is no VMAF. SSIM "All" from ffmpeg's \`ssim\` filter (1 = identical).

### Video (\`compressVideo\`, h264, 1080p 30 s)

${table(["setting", "bytes", "of input", "kb/s", "SSIM", "PSNR dB"], quality.filter((q) => q.kind === "video").map((q) => [
  q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.kbps ?? "", q.ssim.toFixed(4), q.psnr?.toFixed(2) ?? "",
]))}

### Image (\`compressImage\`, 12 MP JPEG input)

${table(["setting", "bytes", "of input", "SSIM"], quality.filter((q) => q.kind === "image").map((q) => [q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.ssim.toFixed(4)]))}

The quality number is the API's 1–100 \`quality\`; AVIF maps it through \`encoderOptions()\` (80 → 79).

### PDF (\`compressPdf\`, 20 pages of photos)

${table(["setting", "bytes", "of input", "SSIM (pages at 100 dpi)"], quality.filter((q) => q.kind === "pdf").map((q) => [q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.ssim.toFixed(4)]))}`;
}

function apiSection(api: ApiResult): string {
  const post = find(api.rows, "service", "POST /v1/jobs");
  const postBase = find(api.rows, "baseline", "POST /v1/jobs");
  const createRatio = post.rps / postBase.rps;
  return `## ${SECTION_NAMES.api}

Closed-loop load from Node's \`fetch\` (${api.rows[0]!.concurrency} requests in flight, after a warm-up), against
the local Worker and against minimal Hono Workers under the same \`wrangler dev\` that
answer the same routes with JSON of the same size: "baseline" touches nothing else;
"floor" first makes only the storage calls any create that keeps the service's promises
needs (the key looked up in D1 by its hash, one Durable Object call that records the
admission in its SQLite, the row inserted in D1, a queue message; a read looks up the key
and the row), with no validation, signing or logging. POSTs to the service create real
jobs (a 480×320 \`compress-image\`, on an enterprise organization) while ${CREATE_GOAL.running} jobs of another
organization run (their downloads held by the input server until the POSTs are done: ${api.running?.before ?? "?"} were
\`processing\` before, ${api.running?.after ?? "?"} after; the created jobs wait for a processor seat meanwhile).
The GETs read one completed job, whose links are signed afresh on every read. The read
limit (300 a minute per key) is spread over ${api.keys} keys so that it never answers.

${table(["route", "target", "requests", "req/s", "p50", "p99", "body bytes", "non-2xx"], api.rows.map((l) => [
  l.route, l.target, l.requests, l.rps.toFixed(0), `${l.p50.toFixed(1)} ms`, `${l.p99.toFixed(1)} ms`, l.bodyBytes,
  Object.entries(l.unexpected).map(([k, v]) => `${v}× ${k}`).join(", ") || "0",
]))}

${(["POST /v1/jobs", "GET /v1/jobs/:id"] as const).map((route) => {
  const s = find(api.rows, "service", route);
  const b = find(api.rows, "baseline", route);
  const f = api.rows.find((r) => r.target === "floor" && r.route === route);
  const floor = f ? ` The floor alone serves ${(f.rps / b.rps).toFixed(2)}× (the service ${(s.rps / f.rps).toFixed(2)}× the floor).` : "";
  return `- ${route}: the service serves **${(s.rps / b.rps).toFixed(2)}×** the bare Worker's requests per second; p50 ${(s.p50 / b.p50).toFixed(1)}×, p99 ${(s.p99 / b.p99).toFixed(1)}×.${floor}`;
}).join("\n")}
- Goal: creating jobs while ${CREATE_GOAL.running} jobs run at ≥ ${CREATE_GOAL.ratio}× the bare Worker's requests per second. Met: ${yesNo(createRatio >= CREATE_GOAL.ratio)} (${createRatio.toFixed(2)}×).`;
}

/** What the floor Worker says about the create goal: how much of the bare Worker's rate those storage calls alone leave. */
function floorNote(api: ApiResult): string {
  const floor = api.rows.find((l) => l.target === "floor" && l.route === "POST /v1/jobs");
  if (!floor) return "";
  const base = find(api.rows, "baseline", "POST /v1/jobs");
  const service = find(api.rows, "service", "POST /v1/jobs");
  const ratio = floor.rps / base.rps;
  return ` The floor Worker, which makes only those storage calls, does ${floor.rps.toFixed(0)} requests/s (${ratio.toFixed(2)}× the bare Worker) with nothing else running; the service does ${(service.rps / floor.rps).toFixed(2)}× the floor.${ratio < CREATE_GOAL.ratio ? ` On this runtime the ${CREATE_GOAL.ratio}× goal is out of reach of any create that keeps the key, quota and durability promises: the local emulation of D1, Durable Objects and Queues costs more than that on its own.` : ""}`;
}

function dispatchSection(d: DispatchResult): string {
  return `## ${SECTION_NAMES.dispatch}

${d.jobs} small \`compress-image\` jobs, one at a time, each run to completion before the next is created.

${table(["measure", "p50", "p99", "min", "max"], [
  ["server: startedAt − createdAt", ms(d.server.p50), ms(d.server.p99), ms(d.server.min), ms(d.server.max)],
  ["client: 201 → first poll not queued (25 ms polls)", ms(d.client.p50), ms(d.client.p99), "", ""],
  ["then: startedAt → completedAt (the small job)", ms(d.running.p50), ms(d.running.p99), "", ""],
])}`;
}

function limitsSection(l: LimitsResult): string {
  return `## ${SECTION_NAMES.limits}

${l.jobs} small \`compress-image\` jobs from ${l.orgs.length} organizations (${countPlans(l)}), ${l.jobs / l.orgs.length} each,
created in one burst (24 at a time, one organization's 25 after another's, so each line fills at once; ${l.createSeconds.toFixed(1)} s to create them all).
The input server holds each download ${l.downloadDelayMs} ms so that jobs overlap, and counts each organization's
downloads in flight; the API column is the most \`processing\` jobs seen in the organization's list (polled every 500 ms).

- Completed ${l.completed} of ${l.jobs} (${l.failed} failed) in ${l.seconds.toFixed(1)} s, first create to last completion: **${l.jobsPerSecond.toFixed(1)} jobs/s**.
- Concurrency never above the plan: **${l.withinLimits ? "yes" : "NO"}**.
- Every job here includes the ${l.downloadDelayMs} ms hold on its download, and a free organization's 25 jobs run 2 at a time, so this is a test of the limits more than of capacity.

${table(["organization", "plan", "limit", "jobs", "completed", "max processing (API)", "max downloads in flight"], l.orgs.map((o) => [
  o.slug, o.plan, o.limit, o.jobs, o.completed, o.maxProcessingApi, o.maxDownloads,
]))}`;
}

function statementsSection(st: StatementsResult): string {
  const sources = (counts: Record<string, number>) => Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join(", ");
  return `## ${SECTION_NAMES.statements}

Counted in the bench's Worker (\`bench/worker/stats.ts\`, around the production code): every D1 result is a
statement (a batch counts one per statement in it), attributed to the job whose id it binds, or
to the job a request is about; every call on a Durable Object stub is a request. Jobs run one at
a time and their counts are read once they stop moving. "client reads" are the bench's own
\`GET /v1/jobs/:id\` polls (100 ms apart), left out of the job's figure: a client that waits
for a webhook makes none. Goal: at most ${STATEMENT_GOAL} D1 statements per job, whatever its type and duration.

${table(["type", "input", "jobs", "D1 statements", "max", "goal", "met", "client reads", "DO requests", "where (median job)"], st.rows.map((row) => [
  `\`${row.type}\``,
  row.input,
  row.jobs,
  row.d1,
  row.d1Max,
  `≤ ${STATEMENT_GOAL}`,
  yesNo(row.met),
  row.clientReads,
  row.durableObjects,
  `D1: ${sources(row.bySource)}; DO: ${sources(row.byNamespace)}`,
]))}

${st.unattributed} statements in the section could not be tied to a job (other requests' key lookups, the cron).`;
}

function costSection(c: CostResult): string {
  const by = (counts: Record<string, number>) => Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join(", ");
  const rate = Object.entries(c.perMinuteBy).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v.toFixed(1)} ${k}`).join(", ");
  const h = c.hour;
  return `## ${SECTION_NAMES.cost}

Produced by \`bench/cost.ts\`, counted as in section 6, and with the limiter's and the pool's
alarm invocations, which Cloudflare bills as requests (each job here ran alone, so they were
its). An hour-long job is too slow to run, so two \`compressImage\` jobs differ only in how
long they run: the small image, and the same image sent a piece every 2 s for a few minutes
(running, no progress, almost no CPU). Their difference per minute is what grows with a job's
duration; an hour is the short job's requests, plus that rate × 60, plus the progress pushes
(at most ${h.progress} an attempt: one per whole percent, \`container/src/events.ts\`), plus what
does not run locally: the cron sweep's poke of a runner past its lease and the runner's
question to its processor (${h.sweeps} an hour), and the start and release through the
container's own Durable Object (${h.containerHops}).

${table(["job", "running", "DO requests", "by what"], [
  ["\`compressImage\`, small image", `${c.short.seconds.toFixed(1)} s`, c.short.total, by(c.short.requests)],
  ["the same, input sent over minutes", `${c.held.seconds.toFixed(1)} s`, c.held.total, by(c.held.requests)],
  ["\`compressVideo\` medium, 1080p 30 s", `${c.encode.seconds.toFixed(1)} s`, c.encode.total, by(c.encode.requests)],
])}

- What grows with time: **${c.perMinute.toFixed(1)} requests a minute** (${rate}).
- An hour-long job: ${h.short} + ${h.timed} + ${h.progress} + ${h.sweeps} + ${h.containerHops} = **${h.total} Durable Object requests** (test/limits/tunables.test.ts holds the same sum, from the tunables, under 600).
- The 1080p 30 s H.264 encode took ${c.encode.seconds.toFixed(1)} s through the service; its requests beyond the short job's are its progress pushes (one per whole percent at most) and heartbeats.

CPU per job, as a container's active-CPU bill counts it: each case of section 1 run once by the
processor's own \`JobTable\` inside the bench's process (no Worker), reading the process's user and
system time and its waited-for children's (ffmpeg, Ghostscript) from \`/proc/self/stat\`; the
loopback download's serving side is in the figure too. On a 1-vCPU \`standard-2\` a job takes at
least its CPU seconds of wall time (x264 and libvips use every core they find; this machine's are listed at the top).

${table(["type", "input", "options", "CPU s", "wall s (this machine)", "output"], c.cpu.map((row) => [
  `\`${row.type}\``,
  row.input,
  `\`${JSON.stringify(row.options)}\``,
  row.cpuS.toFixed(2),
  row.wallS.toFixed(2),
  mb(row.outputBytes),
]))}`;
}

function countPlans(l: LimitsResult): string {
  const counts = new Map<string, number>();
  for (const o of l.orgs) counts.set(o.plan, (counts.get(o.plan) ?? 0) + 1);
  return [...counts].map(([plan, n]) => `${n} ${plan}`).join(", ");
}

/** Starts the section `bench/pool.ts` writes (it needs Docker, so it runs apart); kept across reports. */
export const POOL_SECTION = "<!-- bench/pool.ts -->";

export async function writeReport(r: Results, paths: { markdown: string; png: string }): Promise<void> {
  const previous = await readFile(paths.markdown, "utf8").catch(() => "");
  const kept = previous.includes(POOL_SECTION) ? `\n${previous.slice(previous.indexOf(POOL_SECTION))}` : "";
  await writeFile(paths.markdown, markdown(r) + kept);
  await sharp(Buffer.from(chartSvg(r))).png({ compressionLevel: 9 }).toFile(paths.png);
}

/** Where the goals stand and where the cost goes, from the numbers on the page. */
export function analysis(r: Results): string {
  const parts: string[] = ["## The goals, and where the cost goes"];
  if (r.overhead) {
    const missed = r.overhead.filter((o) => o.met === false);
    const short = r.overhead.filter((o) => o.short && o.met !== null);
    parts.push(`**Time added.** The short jobs add ${short.map((o) => `${addedMs(o.extraMs)} (\`${o.type}\`)`).join(", ")} over their tool;
${missed.length ? `goals missed: ${missed.map((o) => `\`${o.type}\` (${o.input})`).join(", ")}.` : "every goal is met."} Where a short job's time goes
beyond the tool: the runner's part (dispatch, how soon it sees the processor finish), the
processor's upload of its outputs (locally one more request through \`wrangler dev\`'s proxy
per output, some 20–30 ms; in production the container's own outbound request) and its own
extra tool calls ("of which probes"), which on these 2 cores also compete with the tool and
the local Worker for CPU.`);
  }
  if (r.statements) {
    const worst = [...r.statements.rows].sort((a, b) => b.d1 - a.d1)[0]!;
    const shortest = [...r.statements.rows].sort((a, b) => a.d1 - b.d1)[0]!;
    const tally = new Map<string, number>();
    for (const row of r.statements.rows) for (const [k, v] of Object.entries(row.bySource)) tally.set(k, (tally.get(k) ?? 0) + v);
    const top = [...tally].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} (${Math.round((v / r.statements!.rows.reduce((a, row) => a + row.d1, 0)) * 100)} %)`);
    parts.push(`**D1 statements.** From ${shortest.d1} (\`${shortest.type}\`, ${shortest.input}) to ${worst.d1} (\`${worst.type}\`, ${worst.input}) per job, against a goal of ${STATEMENT_GOAL}; most come from ${top.join(", ")}. A count that grows with the job's duration is a runner that writes while it waits.`);
  }
  if (r.api) {
    const post = find(r.api.rows, "service", "POST /v1/jobs");
    const postBase = find(r.api.rows, "baseline", "POST /v1/jobs");
    parts.push(`**Creates under load.** \`POST /v1/jobs\` does ${post.rps.toFixed(0)} requests/s against the bare Worker's ${postBase.rps.toFixed(0)} while ${CREATE_GOAL.running} jobs run: each create looks up the key in D1, asks the organization's limiter (one Durable Object per organization and mode, so one organization's creates are serialized through it, by design, for an exact quota), inserts the row and sends the queue message, then hands the job to the limiter; the runners of the jobs that run share the same workerd.${floorNote(r.api)}`);
  }
  const reference = r.quality?.find((q) => q.kind === "pdf" && q.reference);
  const medium = r.quality?.find((q) => q.kind === "pdf" && q.setting.startsWith("medium"));
  if (reference && medium) {
    parts.push(`**Noticed on the way.** A plain \`gs -dPDFSETTINGS=/ebook\` (the reference) leaves the 20-page PDF at ${(reference.ratio * 100).toFixed(0)} % of its size: Ghostscript 10 passes JPEG images through untouched by default. The service's \`-dPassThroughJPEGImages=false\` is what brings the medium preset to ${(medium.ratio * 100).toFixed(0)} %.
The video "high" preset (CRF 18) gives a file as large as this input, which is itself a CRF 18
encode: on already-compressed uploads it buys size, not quality. The service's medium preset
uses exactly the reference x264 command (CRF 23, preset medium).`);
  }
  return parts.join("\n\n");
}

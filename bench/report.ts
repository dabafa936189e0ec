// Writes docs/benchmarks.md (tables) and docs/benchmarks.png (chart.ts's SVG, rendered by
// sharp) from one run's measurements. Nothing here judges a timing: the
// numbers are reported as measured, with the machine and its load beside them.
import { readFile, writeFile } from "node:fs/promises";
import sharp from "sharp";
import type { ApiResult } from "./api-load.ts";
import type { DispatchResult } from "./dispatch.ts";
import type { LimitsResult } from "./limits-load.ts";
import { chartSvg } from "./chart.ts";
import { find, mb, ms, table } from "./format.ts";
import { INPUT_DESCRIPTIONS } from "./media.ts";
import type { OverheadRow } from "./overhead.ts";
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
  overhead: OverheadRow[];
  quality: QualityRow[];
  api: ApiResult;
  dispatch: DispatchResult;
  limits: LimitsResult;
  /** Hand-written analysis, appended as is. */
  analysis: string;
}

export function markdown(r: Results): string {
  const m = r.machine;
  const out: string[] = [];
  out.push(`# Benchmarks

How close the service gets to running ffmpeg, sharp and Ghostscript by hand, what each
preset gives for its bytes, and what the API, dispatch and limits cost. Produced by
\`npm run bench\` (\`bench/\`), which starts the whole service locally the way \`npm run dev\`
does (processor as a Node process, Worker under \`wrangler dev\`), generates its own media,
and rewrites this page and [benchmarks.png](benchmarks.png). Nothing here is asserted by a
test; the numbers are one run's, on the machine below.

- Run: ${m.date}, ${Math.round(r.totalSeconds / 60)} min in all.
- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB RAM, ${m.os}.
- Versions: ${Object.entries(m.versions).map(([k, v]) => `${k} ${v}`).join(", ")}.
- ${r.noisy.length ? `**Noisy:** other test runs (vitest) shared the ${m.cpus} cores during: ${r.noisy.join(", ")}. Those sections' timings are inflated and vary between runs; ratios measured with service and direct runs interleaved suffer least.` : "No other test run (vitest) was seen on the machine during the run."}
- Local only: the Worker runs in workerd under \`wrangler dev\` (Miniflare's D1, R2, Queues and Durable Objects on local disk), and the processor in the same Node process as the load generator. Production numbers differ; the proportions are what this page is for.

![Overhead, API throughput, dispatch latency and concurrency per organization](benchmarks.png)

## Inputs

Generated on first run into \`bench/.media/\` (git-ignored) and served to the service over loopback HTTP.

${table(["what", "bytes", "made of"], [
  ["video", mb(r.inputs.video!.bytes), INPUT_DESCRIPTIONS.video],
  ["photo", mb(r.inputs.photo!.bytes), INPUT_DESCRIPTIONS.photo],
  ["pdf", mb(r.inputs.pdf!.bytes), INPUT_DESCRIPTIONS.pdf],
  ["small", mb(r.inputs.small!.bytes), INPUT_DESCRIPTIONS.small + " (sections 3–5)"],
])}

## 1. Processing overhead: service against the tool run directly

Service: \`POST /v1/jobs\` until \`GET /v1/jobs/:id\` (polled every 100 ms) says \`completed\`,
so it includes the download from the loopback server, probing, the queue, the runner's
polls, the copy of outputs to R2 and the poll granularity. Direct: the same tool with the
arguments the processor's own \`buildArgs\` (or, for images, its sharp pipeline and
\`encoderOptions()\`) produce, on the local file, probe done beforehand. Median of the runs; service
and direct runs alternate. "server" is the job's own \`completedAt − createdAt\`. "of which
probes" is the processor's own tool calls around the transformation (ffprobe of input and
output; sharp's metadata read; Ghostscript's page count of input and output), timed alone.

${table(["type", "options", "runs", "direct", "service", "server", "extra", "of which probes", "ratio", "goal", "met"], r.overhead.map((o) => [
  `\`${o.type}\``,
  `\`${JSON.stringify(o.options)}\``,
  o.runs,
  ms(o.directMs),
  ms(o.serviceMs),
  ms(o.serverMs),
  `+${ms(o.extraMs)}`,
  ms(o.extrasMs),
  `${o.ratio.toFixed(2)}×`,
  o.goal,
  o.met === null ? "–" : o.met ? "yes" : "**no**",
]))}

Every run, ms (direct / service):
${r.overhead.map((o) => `- \`${o.type}\`: ${o.directAll.map(Math.round).join(", ")} / ${o.serviceAll.map(Math.round).join(", ")}`).join("\n")}

## 2. Compression: bytes and quality per preset

Scores compare the output with the input (for video, the input is itself a lossy CRF 18
encode, so PSNR/SSIM measure the loss added by the service). This ffmpeg (5.1, Debian) is
built without libvmaf, so there is no VMAF. SSIM "All" from ffmpeg's \`ssim\` filter (1 = identical).

### Video (\`compressVideo\`, h264, 1080p 30 s)

${table(["setting", "bytes", "of input", "kb/s", "SSIM", "PSNR dB"], r.quality.filter((q) => q.kind === "video").map((q) => [
  q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.kbps ?? "", q.ssim.toFixed(4), q.psnr?.toFixed(2) ?? "",
]))}

### Image (\`compressImage\`, 12 MP JPEG input)

${table(["setting", "bytes", "of input", "SSIM"], r.quality.filter((q) => q.kind === "image").map((q) => [q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.ssim.toFixed(4)]))}

The quality number is the API's 1–100 \`quality\`; AVIF maps it through \`encoderOptions()\` (80 → 79).

### PDF (\`compressPdf\`, 20 pages of photos)

${table(["setting", "bytes", "of input", "SSIM (pages at 100 dpi)"], r.quality.filter((q) => q.kind === "pdf").map((q) => [q.setting, mb(q.bytes), `${(q.ratio * 100).toFixed(1)} %`, q.ssim.toFixed(4)]))}

## 3. API throughput: the service beside a bare Hono Worker

Closed-loop load from Node's \`fetch\` (${r.api.rows[0]!.concurrency} requests in flight, after a warm-up), against
the local Worker and against a minimal Hono Worker under the same \`wrangler dev\` that
answers the same routes with JSON of the same size and touches nothing else. POSTs create real
jobs (a 480×320 \`compress-image\`, on an enterprise organization) that run while the load goes
on; the GETs read one completed job, whose links are signed afresh on every read. The read
limit (300 a minute per key) is spread over ${r.api.keys} keys so that it never answers.

${table(["route", "target", "requests", "req/s", "p50", "p99", "body bytes", "non-2xx"], r.api.rows.map((l) => [
  l.route, l.target, l.requests, l.rps.toFixed(0), `${l.p50.toFixed(1)} ms`, `${l.p99.toFixed(1)} ms`, l.bodyBytes,
  Object.entries(l.unexpected).map(([k, v]) => `${v}× ${k}`).join(", ") || "0",
]))}

${(["POST /v1/jobs", "GET /v1/jobs/:id"] as const).map((route) => {
  const s = find(r.api.rows, "service", route);
  const b = find(r.api.rows, "baseline", route);
  return `- ${route}: the service serves **${(s.rps / b.rps).toFixed(2)}×** the bare Worker's requests per second; p50 ${(s.p50 / b.p50).toFixed(1)}×, p99 ${(s.p99 / b.p99).toFixed(1)}×.`;
}).join("\n")}

## 4. Dispatch latency: 201 to \`processing\`, idle processor

${r.dispatch.jobs} small \`compress-image\` jobs, one at a time, each run to completion before the next is created.

${table(["measure", "p50", "p99", "min", "max"], [
  ["server: startedAt − createdAt", ms(r.dispatch.server.p50), ms(r.dispatch.server.p99), ms(r.dispatch.server.min), ms(r.dispatch.server.max)],
  ["client: 201 → first poll not queued (25 ms polls)", ms(r.dispatch.client.p50), ms(r.dispatch.client.p99), "", ""],
  ["then: startedAt → completedAt (the small job)", ms(r.dispatch.running.p50), ms(r.dispatch.running.p99), "", ""],
]).replace("|---|--:|", "|---|--:|")}

## 5. Limits under load

${r.limits.jobs} small \`compress-image\` jobs from ${r.limits.orgs.length} organizations (${countPlans(r.limits)}), ${r.limits.jobs / r.limits.orgs.length} each,
created in one burst (24 at a time, one organization's 25 after another's, so each line fills at once; ${r.limits.createSeconds.toFixed(1)} s to create them all).
The input server holds each download ${r.limits.downloadDelayMs} ms so that jobs overlap, and counts each organization's
downloads in flight; the API column is the most \`processing\` jobs seen in the organization's list (polled every 500 ms).

- Completed ${r.limits.completed} of ${r.limits.jobs} (${r.limits.failed} failed) in ${r.limits.seconds.toFixed(1)} s, first create to last completion: **${r.limits.jobsPerSecond.toFixed(1)} jobs/s**.
- Concurrency never above the plan: **${r.limits.withinLimits ? "yes" : "NO"}**. Free and pro organizations sat at their limit; enterprise ones had fewer jobs (25) than slots (50).
- Every job here includes the ${r.limits.downloadDelayMs} ms hold on its download, and a free organization's 25 jobs run 2 at a time, so this is a test of the limits more than of capacity.

${table(["organization", "plan", "limit", "jobs", "completed", "max processing (API)", "max downloads in flight"], r.limits.orgs.map((o) => [
  o.slug, o.plan, o.limit, o.jobs, o.completed, o.maxProcessingApi, o.maxDownloads,
]))}

${r.analysis}
`);
  return out.join("\n");
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

/** Where the time goes, from the numbers of this run. */
export function analysis(r: Results): string {
  const o = (type: string) => r.overhead.find((x) => x.type === type)!;
  const image = o("compressImage");
  const pdf = o("compressPdf");
  const video = o("compressVideo");
  const d = r.dispatch;
  const post = find(r.api.rows, "service", "POST /v1/jobs");
  const postBase = find(r.api.rows, "baseline", "POST /v1/jobs");
  const get = find(r.api.rows, "service", "GET /v1/jobs/:id");
  const getBase = find(r.api.rows, "baseline", "GET /v1/jobs/:id");
  const reference = r.quality.find((q) => q.kind === "pdf" && q.reference);
  const medium = r.quality.find((q) => q.kind === "pdf" && q.setting.startsWith("medium"));
  return `## Where the time goes, and how to remove it

**1. The runner finds out by polling (the biggest remaining cost).** Dispatch takes
${ms(d.server.p50)} at the median and ${ms(d.server.p99)} at p99 (min ${ms(d.server.min)}, max
${ms(d.server.max)}): \`POST /v1/jobs\` hands each job to its organization's limiter at once
(in \`waitUntil\`), and the queue message stays only as the at-least-once path. (Before that
change every job waited out the jobs queue's one-second batch window first; an earlier run of
this bench measured dispatch at 1,021 ms p50.) What is left between a finished transformation
and a \`completed\` job is mostly the runner's alarm: it polls the processor every 100 ms for
the first second, every 250 ms up to about 10 s, then every 2 s (\`src/runner/job-runner.ts\`).
A short job is seen done about 50 ms late on average; a job past 10 s, such as
\`compressVideo\` (${ms(video.directMs)} of encoding here), about a second late and up to 2 s.
\`compressImage\` spends +${ms(image.extraMs)} over sharp in all. To remove it: the processor
pushes its state change (a \`POST\` to a runner endpoint with the attempt id, authenticated by
\`PROCESSOR_TOKEN\`), and the runner sets its alarm to now; the alarm polls stay, at the slow
rate, as the fallback for a lost push.

**2. The queue as the fallback.** When the direct hand-off fails (the limiter is briefly
unreachable), the job still starts from its queue message, after the consumer's
\`max_batch_timeout\` (1 s). Lowering it to 0 would shave that second off the fallback path at
the cost of more consumer invocations.

**3. Extra tool runs inside the processor.** The "of which probes" column times the processor's
own calls around the transformation. For \`compressPdf\` they are two more Ghostscript passes,
\`pdfPageCount\` on the input and on the output, ${ms(pdf.extrasMs)} against ${ms(pdf.directMs)} of
pdfwrite. The output count could come from pdfwrite's own \`Page N\` lines, which
\`runGhostscript\` already parses for progress, saving one pass. For the video types the ffprobe
calls cost ${ms(o("compressVideo").extrasMs)}, which is small beside an encode.

**4. Moving the bytes.** The service downloads the input over HTTP (here loopback; a
${(r.inputs.video!.bytes / 1e6).toFixed(0)} MB clip), and after the processor finishes, the runner streams each
output through the Worker into R2 before the job is \`completed\`. For video both are
sequential with the encode. In production the processor could upload to R2 itself (a
presigned URL per output) while the runner only records the keys. The quick video jobs pay
for the whole download too: \`videoThumbnail\` reads one frame (${ms(o("videoThumbnail").directMs)} directly) but
waits for all ${(r.inputs.video!.bytes / 1e6).toFixed(0)} MB first (+${ms(o("videoThumbnail").extraMs)} in all). That is deliberate (ffmpeg
only ever opens local files, docs/security.md), and on a real network it will dominate
such jobs.

**5. Sharing two cores.** Locally the Worker (workerd, answering the bench's 100 ms polls and
running the runner's alarms and D1 writes), the processor's Node process and ffmpeg share the
machine's ${r.machine.cpus} cores, while ffmpeg alone would use them all. Part of the long jobs' gap
(\`compressVideo\` +${ms(video.extraMs)}, ${video.ratio.toFixed(2)}×) is that contention, which a container with its own
CPUs (production: a \`standard-2\` instance per two running jobs, [capacity.md](capacity.md)) does not have; the rest is items 1 and 4.

**6. The API.** \`POST /v1/jobs\` does ${post.rps.toFixed(0)} requests/s against the bare Worker's
${postBase.rps.toFixed(0)} (p50 ${post.p50.toFixed(0)} ms against ${postBase.p50.toFixed(0)} ms): each create
looks up the key in D1, asks the organization's limiter (one Durable Object, so one
organization's creates are serialized through it, by design, for an exact quota), inserts
the row and sends the queue message, all in sequence, then hands the job to the limiter; and the jobs it creates start running
in the same workerd at once. \`GET /v1/jobs/:id\` does ${get.rps.toFixed(0)} against ${getBase.rps.toFixed(0)}: a key
lookup, the read-rate binding, one D1 read and the HMAC signing of the result links. Both are
local SQLite-backed simulations here; the ratio, not the absolute number, is the point.

**Noticed on the way.** ${reference && medium ? `A plain \`gs -dPDFSETTINGS=/ebook\` (the reference) leaves this PDF at ${(reference.ratio * 100).toFixed(0)} % of its size: Ghostscript 10 passes JPEG images through untouched by default. The service's \`-dPassThroughJPEGImages=false\` is what brings the medium preset to ${(medium.ratio * 100).toFixed(0)} %.` : ""}
The video "high" preset (CRF 18) gives a file as large as this input, which is itself a CRF 18
encode: on already-compressed uploads it buys size, not quality. The service's medium preset
uses exactly the reference x264 command (CRF 23, preset medium).
`;
}

// The processor pool against the design before it (one container per attempt), side by
// side in one run, with real containers under `wrangler dev --enable-containers` on a
// Docker engine, both at the same small max_instances: container cold start, warm per-job
// overhead over the raw tool, and throughput in jobs per minute with the peak number of
// containers (sampled from `docker ps`). Writes its section at the end of
// docs/benchmarks.md (kept there by `npm run bench`); numbers are one run's.
//
//   BEFORE_DIR, AFTER_DIR  checkouts of the two designs, each with node_modules, a
//                          .dev.vars, and wrangler.toml's max_instances set to MAX_INSTANCES
//                          (and PROCESSOR_INSTANCES in AFTER_DIR's .dev.vars)
//   BEFORE_URL, AFTER_URL  where each one's `wrangler dev` listens (started by the caller)
//   INPUT_URL              a JPEG the containers can reach (the Docker bridge gateway, a
//                          private address: each checkout's ProcessorContainer must pass the
//                          Worker's ALLOW_PRIVATE_NETWORK_INPUTS=true on to the processor)
//   MAX_INSTANCES (2), WARM_JOBS (5), BURST_JOBS (3 × MAX_INSTANCES), AFTER_S (90)
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { promisify } from "node:util";
import sharp from "sharp";
import { POOL_SECTION } from "./report.ts";
import { median, sleep } from "./support.ts";

const exec = promisify(execFile);
const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required (see bench/pool.ts)`);
  return value;
};
const MAX_INSTANCES = Number(env("MAX_INSTANCES", "2"));
const WARM_JOBS = Number(env("WARM_JOBS", "5"));
const BURST_JOBS = Number(env("BURST_JOBS", String(3 * MAX_INSTANCES)));
const INPUT_URL = env("INPUT_URL");
const OPTIONS = { quality: 70, format: "webp", maxWidth: 800 };
const JOB_DEADLINE_MS = 180_000;
/** How long after the last job the containers left running are counted (the pool's idle stop is 60 s by default). */
const AFTER_S = Number(env("AFTER_S", "90"));

interface Design {
  name: string;
  dir: string;
  url: string;
}

async function adminKey(design: Design): Promise<string> {
  const { stdout } = await exec("node", ["scripts/admin.ts", "create-key", "--url", design.url, "--org", `bench-${Date.now()}`, "--plan", "enterprise"], {
    cwd: design.dir,
  });
  return stdout.trim().split("\n").at(-1)!;
}

async function api(design: Design, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${design.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await response.json()) as { id: string; status: string; error?: { code: string } };
}

/** Creates a compress-image job and polls it every 100 ms until it ends; wall time in ms. */
async function runJob(design: Design, key: string): Promise<{ ms: number; status: string; error?: string }> {
  const start = performance.now();
  const created = await api(design, key, "POST", "/v1/jobs", { type: "compress-image", input: INPUT_URL, options: OPTIONS });
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (;;) {
    const job = await api(design, key, "GET", `/v1/jobs/${created.id}`);
    if (["completed", "failed", "cancelled"].includes(job.status)) return { ms: performance.now() - start, status: job.status, error: job.error?.code };
    if (Date.now() > deadline) return { ms: performance.now() - start, status: "timed out" };
    await sleep(100);
  }
}

/** Running processor containers (their sidecars, `…-proxy`, are not counted). */
async function appContainers(): Promise<string[]> {
  const { stdout } = await exec(process.env.DOCKER_REAL ?? "docker", ["ps", "--filter", "name=ProcessorContainer", "--format", "{{.ID}} {{.Names}}"]);
  return stdout
    .split("\n")
    .filter((line) => line && !line.endsWith("-proxy"))
    .map((line) => line.split(" ")[0]!);
}

/** The same transformation run directly with sharp, median of `runs`. */
async function rawToolMs(runs: number): Promise<number> {
  const input = Buffer.from(await (await fetch(INPUT_URL)).arrayBuffer());
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await sharp(input).resize({ width: OPTIONS.maxWidth, withoutEnlargement: true }).webp({ quality: OPTIONS.quality }).toBuffer();
    times.push(performance.now() - start);
  }
  return median(times);
}

interface DesignResult {
  /** Containers of this design still running AFTER_S after its last job. */
  leftAfter: number;
  coldMs: number;
  warmMs: number;
  burst: { jobs: number; completed: number; failed: string[]; seconds: number; perMinute: number; peakContainers: number };
}

async function measure(design: Design): Promise<DesignResult> {
  // Containers already running belong to the design measured before.
  const others = new Set(await appContainers());
  const ours = async () => (await appContainers()).filter((id) => !others.has(id));
  const key = await adminKey(design);
  console.error(`[${design.name}] cold job`);
  const cold = await runJob(design, key);
  console.error(`[${design.name}] ${WARM_JOBS} jobs one after another`);
  const warm: number[] = [];
  for (let i = 0; i < WARM_JOBS; i++) warm.push((await runJob(design, key)).ms);
  console.error(`[${design.name}] ${BURST_JOBS} jobs at once`);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, (await ours()).length);
      await sleep(250);
    }
  })();
  const start = performance.now();
  const results = await Promise.all(Array.from({ length: BURST_JOBS }, () => runJob(design, key)));
  const seconds = (performance.now() - start) / 1000;
  sampling = false;
  await sampler;
  const completed = results.filter((r) => r.status === "completed").length;
  console.error(`[${design.name}] waiting ${AFTER_S} s, then counting its containers still running`);
  await sleep(AFTER_S * 1000);
  const left = (await ours()).length;
  return {
    leftAfter: left,
    coldMs: cold.ms,
    warmMs: median(warm),
    burst: {
      jobs: BURST_JOBS,
      completed,
      failed: results.filter((r) => r.status !== "completed").map((r) => r.error ?? r.status),
      seconds,
      perMinute: (completed / seconds) * 60,
      peakContainers: peak,
    },
  };
}

const designs: Design[] = [
  { name: "before: a container per attempt", dir: env("BEFORE_DIR"), url: env("BEFORE_URL") },
  { name: "after: the processor pool", dir: env("AFTER_DIR"), url: env("AFTER_URL") },
];
const rawMs = await rawToolMs(5);
const results: [Design, DesignResult][] = [];
for (const design of designs) results.push([design, await measure(design)]);

const f = (ms: number) => `${Math.round(ms)} ms`;
const lines = [
  POOL_SECTION,
  "## 7. The processor pool against a container per attempt",
  "",
  `Produced by \`bench/pool.ts\` (real containers under \`wrangler dev --enable-containers\` on a local Docker engine; the two designs one after the other in one run, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus().length} cores shared with everything else on the machine). Both at \`max_instances = ${MAX_INSTANCES}\`; the pool with its default ${"`JOBS_PER_INSTANCE`"}. Jobs: compress-image ${JSON.stringify(OPTIONS)} of a 1600×1067 JPEG, created and polled every 100 ms through the API. Raw sharp, the same transformation run directly: ${f(rawMs)} (median of 5).`,
  "",
  `| design | first job (cold) | next jobs one at a time, median | over raw sharp | jobs at once | completed | failed | jobs per minute | peak containers | containers running ${AFTER_S} s after |`,
  "|---|--:|--:|--:|--:|--:|---|--:|--:|--:|",
  ...results.map(
    ([design, r]) =>
      `| ${design.name} | ${f(r.coldMs)} | ${f(r.warmMs)} | ${f(r.warmMs - rawMs)} | ${r.burst.jobs} | ${r.burst.completed} | ${r.burst.failed.join(", ") || "none"} | ${r.burst.perMinute.toFixed(1)} | ${r.burst.peakContainers} | ${r.leftAfter} |`,
  ),
  "",
  "Locally nothing enforces `max_instances`: the peak column is how many containers each design actually ran.",
  "",
];
const report = new URL("../docs/benchmarks.md", import.meta.url);
const current = await readFile(report, "utf8");
const head = current.includes(POOL_SECTION) ? current.slice(0, current.indexOf(POOL_SECTION)) : `${current.trimEnd()}\n\n`;
await writeFile(report, head + lines.join("\n"));
console.log(lines.join("\n"));
console.log(JSON.stringify({ rawMs, maxInstances: MAX_INSTANCES, results: results.map(([d, r]) => ({ design: d.name, ...r })) }));

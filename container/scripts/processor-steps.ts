// The processor's own time, by hand: each short job type run through its processor module
// in this process (no HTTP, no download: the input is a local file) against the same
// transformation run alone with the processor's own arguments, alternating, N runs each;
// medians, and each step's median time and run count from the processor's StepLog. CPU
// time (this process and the tools it ran) is shown too: unlike wall time, it holds up when
// other work shares the machine.
//   node container/scripts/processor-steps.ts [runs]
// Inputs are made on first use in $TMPDIR/media-jobs-processor-steps/ and kept.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { jobTypes, type JobType } from "../../src/contract/registry.ts";
import { loadConfig } from "../src/config.ts";
import { encoderOptions } from "../src/processors/compress-image.ts";
import { buildArgs as pdfArgs } from "../src/processors/compress-pdf.ts";
import { buildArgs as audioArgs } from "../src/processors/extract-audio.ts";
import { processors } from "../src/processors/index.ts";
import type { Processor, ProcessorContext } from "../src/processors/types.ts";
import { buildArgs as thumbnailArgs } from "../src/processors/video-thumbnail.ts";
import { StepLog } from "../src/steps.ts";
import { runFfmpeg } from "../src/tools/ffmpeg.ts";
import { probeMedia } from "../src/tools/ffprobe.ts";
import { frameBox, grabJpeg } from "../src/tools/frames.ts";
import { localInput } from "../src/local-input.ts";
import { ghostscriptFailure, runGhostscript } from "../src/tools/ghostscript.ts";
import { buildPdf, photoJpeg } from "../test/pdf-fixtures.ts";

const exec = promisify(execFile);
const runs = Number(process.argv[2] ?? 7);
const dir = join(tmpdir(), "media-jobs-processor-steps");
const config = loadConfig({ WORK_DIR: join(dir, "work") }, tmpdir());
const signal = new AbortController().signal;
const limits = { signal, timeoutMs: 120_000 };

async function cached(name: string, make: (path: string) => Promise<void>): Promise<string> {
  const path = join(dir, name);
  if (!(await stat(path).then((s) => s.size > 0, () => false))) await make(path);
  return path;
}

await mkdir(dir, { recursive: true });
const clip = await cached("clip-720p-5.6s.mp4", (path) =>
  exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y",
    "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=5.6",
    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=5.6",
    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart", path,
  ]).then(() => undefined),
);
const photo = await cached("photo-1280x960.jpg", async (path) => {
  await sharp((await photoJpeg(1280, 960, 90)).data).toFile(path);
});
const pdf = await cached("photos-2-pages.pdf", async (path) => {
  const pages = [{ lines: ["Page 1 of 2"], jpeg: await photoJpeg(600, 800, 85) }, { lines: ["Page 2 of 2"], jpeg: await photoJpeg(600, 800, 85) }];
  await writeFile(path, buildPdf(pages, { info: { Title: "processor steps" } }));
});
const clipProbe = await probeMedia(clip, signal);

interface Case {
  type: JobType;
  input: string;
  options: Record<string, unknown>;
  /** The transformation alone, as the processor runs it, writing into `out`. */
  raw: (params: any, out: string) => Promise<unknown>;
}

async function ghostscriptAlone(params: any, out: string): Promise<void> {
  const result = await runGhostscript(pdfArgs(params, { input: pdf, output: join(out, "document.pdf") }), limits);
  const failure = ghostscriptFailure(result);
  if (failure) throw failure;
}

const cases: Case[] = [
  {
    type: "extractAudio",
    input: clip,
    options: { quality: "medium" },
    raw: (params, out) => runFfmpeg(audioArgs(params, clipProbe, { input: clip, output: join(out, "audio.mp3") }), { ...limits, task: "raw" }),
  },
  {
    type: "videoThumbnail",
    input: clip,
    options: { timestamp: 2, format: "jpg" },
    raw: (params, out) => {
      // A plain JPEG: ffmpeg writes it (frames.ts jpegByFfmpeg), as the job does.
      const output = join(out, "thumbnail.jpg");
      const args = thumbnailArgs(params, clipProbe, { input: clip, output, time: 2 });
      const ctx = { input: { source: clip }, workDir: out, signal, config };
      return grabJpeg(ctx, clipProbe, args, { time: 2, written: output, output, box: frameBox(clipProbe.video!, params) });
    },
  },
  {
    type: "compressPdf",
    input: pdf,
    options: { quality: "medium" },
    raw: ghostscriptAlone,
  },
  {
    type: "compressPdf",
    input: pdf,
    options: { quality: "medium", removeMetadata: true },
    raw: ghostscriptAlone,
  },
  {
    type: "compressImage",
    input: photo,
    options: { quality: 80, format: "webp" },
    raw: (params, out) => {
      const encoder = encoderOptions("webp", params.quality);
      return sharp(photo, { limitInputPixels: config.MAX_INPUT_PIXELS, failOn: "truncated" })
        .autoOrient()
        .keepMetadata()
        .toFormat(encoder.id, encoder.options)
        .toFile(join(out, "image.webp"));
    },
  },
];

/** CPU milliseconds used so far by this process and by the children it has waited for (/proc: ticks of 10 ms). */
async function cpuMs(): Promise<number> {
  const own = process.cpuUsage();
  const fields = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]!.split(" ");
  // After the command name: cutime and cstime are fields 16 and 17 of stat(5), here 13 and 14.
  const children = (Number(fields[13]) + Number(fields[14])) * 10;
  return (own.user + own.system) / 1000 + children;
}

async function runProcessor(c: Case, params: unknown, workDir: string): Promise<{ ms: number; steps: StepLog; result: unknown }> {
  await mkdir(join(workDir, "out"), { recursive: true });
  const ctx: ProcessorContext = {
    input: localInput(c.input, (await stat(c.input)).size),
    workDir,
    signal,
    config,
    setProgress: () => {},
    addOutput: (name) => join(workDir, "out", name),
    openInput: () => Promise.reject(new Error("the step measurement runs one-input types only")),
    plan: () => {
      throw new Error("the step measurement offers no fan-out");
    },
    openPart: () => Promise.reject(new Error("the step measurement runs no stitch")),
    publish: async () => {},
  };
  const steps = new StepLog();
  const started = performance.now();
  const result = await steps.run(() => (processors[c.type] as Processor<JobType>)(params as never, ctx));
  return { ms: performance.now() - started, steps, result };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

console.log(`${runs} runs each, medians in ms; steps: median ms × runs per job\n`);
console.log("| job | raw | processor | added | CPU raw | CPU processor | steps |");
console.log("|---|--:|--:|--:|--:|--:|---|");
for (const c of cases) {
  const params = jobTypes[c.type].params.parse({ url: "https://example.com/input", ...c.options });
  const raw: number[] = [];
  const processor: number[] = [];
  const rawCpu: number[] = [];
  const processorCpu: number[] = [];
  const stepMs = new Map<string, number[]>();
  const stepRuns = new Map<string, number>();
  let lastResult: unknown;
  // One warm-up of each, unmeasured: the first sharp or Ghostscript call in a process loads its libraries.
  for (let i = -1; i < runs; i++) {
    const work = await mkdtemp(join(dir, "run-"));
    try {
      const c0 = await cpuMs();
      const t0 = performance.now();
      await c.raw(params, work);
      const rawMs = performance.now() - t0;
      const c1 = await cpuMs();
      const run = await runProcessor(c, params, join(work, "job"));
      const c2 = await cpuMs();
      if (i < 0) continue;
      raw.push(rawMs);
      processor.push(run.ms);
      rawCpu.push(c1 - c0);
      processorCpu.push(c2 - c1);
      lastResult = run.result;
      const totals = run.steps.totals();
      for (const [name, ms] of Object.entries(totals)) stepMs.set(name, [...(stepMs.get(name) ?? []), ms]);
      for (const { step } of run.steps.list()) stepRuns.set(step, (stepRuns.get(step) ?? 0) + 1);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const steps = [...stepMs].map(([name, ms]) => `${name} ${Math.round(median(ms))}${stepRuns.get(name)! / runs > 1 ? ` ×${stepRuns.get(name)! / runs}` : ""}`).join(", ");
  const r = median(raw);
  const p = median(processor);
  console.log(`| ${c.type} ${JSON.stringify(c.options)} | ${Math.round(r)} | ${Math.round(p)} | +${Math.round(p - r)} | ${Math.round(median(rawCpu))} | ${Math.round(median(processorCpu))} | ${steps} |`);
  if (process.env.SHOW_RESULT) console.log(JSON.stringify(lastResult));
}

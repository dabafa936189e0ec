// Section 8 (issue 27): a large input read as the job needs it. Jobs run on the processor's
// own job table (no Worker: this is the processor's reading of its input), their input on
// a range-counting origin over loopback (test/support/range-server.ts), against the raw
// tool on a local copy of the same file, in the same run: a thumbnail at 60 s of a 1 GB
// MP4, of a 1.2 GB 1080p phone video and of a 0.9 GB 1080p camera video (each with its
// index at the start, and at the end) with the bytes it fetched, against ffmpeg writing the
// JPEG from the local file; extractAudio and compressVideo of the 1 GB MP4 against a
// download and the tool measured apart; short jobs against their tool.
// `npm run bench -- --only largeInputs`.
import { readFileSync } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobTypes, type JobType } from "../src/contract/registry.ts";
import type { ProcessorJobState } from "../src/contract/processor-protocol.ts";
import { loadConfig } from "../container/src/config.ts";
import { fetchInput } from "../container/src/fetch-input.ts";
import { JobTable } from "../container/src/jobs.ts";
import { buildArgs as videoArgs } from "../container/src/processors/compress-video.ts";
import { buildArgs as audioArgs } from "../container/src/processors/extract-audio.ts";
import { buildArgs as thumbnailArgs } from "../container/src/processors/video-thumbnail.ts";
import { runFfmpeg } from "../container/src/tools/ffmpeg.ts";
import { probeMedia } from "../container/src/tools/ffprobe.ts";
import { readyCounts, startReadyTools, stopReadyTools } from "../container/src/tools/ready-tools.ts";
import { readyKinds } from "../container/src/processors/index.ts";
import { frameBox, grabJpeg } from "../container/src/tools/frames.ts";
import { readyImageToolsWaiting, startReadyImageTools, stopReadyImageTools } from "../container/src/tools/image-process.ts";
import { startRangeServer, type Behaviour, type RangeServer } from "../test/support/range-server.ts";
import { MEDIA_DIR } from "./media.ts";
import { exec, log, median } from "./support.ts";

export interface LargeInputRow {
  job: string;
  input: string;
  inputBytes: number;
  /** The job on the processor, its input on the origin (median, ms). */
  jobMs: number;
  /** The raw tool on the local copy (median, ms). */
  toolMs: number;
  /** The whole input downloaded alone (ms), where the target compares with download + tool. */
  downloadMs?: number;
  /** Bytes the origin served for the job (the last run's), and as a share of the input. */
  servedBytes: number;
  servedShare: number;
  requests: number;
  goal: string;
  met: boolean;
  runs: number;
  /**
   * Where a whole read's CPU went (medians, ms): the download alone and the job in this
   * process (the origin server, the processor's copy and, in the job, its loopback serve
   * to the tool), the tool's processes alone and in the job. On loopback the origin's CPU
   * is on the same cores as the tool's.
   */
  cpu?: { downloadMs: number; toolMs: number; jobProcessMs: number; jobToolsMs: number };
}

export interface LargeInputsResult {
  rows: LargeInputRow[];
  /** The machine's floor: one start of ffmpeg (`ffmpeg -version`, median ms), and loopback's rate for a whole download (MB/s). */
  ffmpegStartMs: number;
  downloadMBps: number;
}

const LARGE_DIR = join(MEDIA_DIR, "large");

/**
 * 5 min of 640×360 noise over a test pattern at about 27 Mbit/s, a keyframe every second,
 * with AAC: 10 s encoded once, then 30 copies joined without re-encoding (seconds, not
 * minutes). The index at the start (faststart) and at the end, from the same packets.
 */
async function largeInputs(): Promise<{ faststart: string; moovAtEnd: string; short: string }> {
  await mkdir(LARGE_DIR, { recursive: true });
  const clip = join(LARGE_DIR, "clip.mp4");
  const short = join(LARGE_DIR, "short.mp4");
  const faststart = join(LARGE_DIR, "large-faststart.mp4");
  const moovAtEnd = join(LARGE_DIR, "large-moov-at-end.mp4");
  const made = await stat(moovAtEnd).then((s) => s.size >= 1e9, () => false);
  if (made) return { faststart, moovAtEnd, short };
  log("making the 1 GB inputs (once, cached in bench/.media/large)");
  await exec("ffmpeg", [
    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=10,noise=alls=40:allf=t", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=10",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-b:v", "28M", "-minrate", "28M", "-maxrate", "28M", "-bufsize", "4M",
    "-x264-params", "nal-hrd=cbr", "-c:a", "aac", "-b:a", "128k", "-shortest", clip,
  ]);
  await exec("ffmpeg", ["-v", "error", "-y", "-stream_loop", "29", "-i", clip, "-c", "copy", "-movflags", "+faststart", faststart]);
  // A short job's input: 6 s of 320×240 at an ordinary bitrate.
  await exec("ffmpeg", [
    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=6",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", short,
  ]);
  await exec("ffmpeg", ["-v", "error", "-y", "-stream_loop", "29", "-i", clip, "-c", "copy", moovAtEnd]);
  return { faststart, moovAtEnd, short };
}

/**
 * 1080p videos as phones and cameras write them: H.264 High profile with two B-frames,
 * grain over a test pattern so the bitrate is real, AAC; 30 s encoded once (x264
 * superfast), then copies joined without re-encoding, and the index at the start and at
 * the end. On this bench's two shared cores: about 1 min for the phone's 30 s, 1.3 min for
 * the camera's, and seconds for each join (measured 2026-11-29 under a load of 10).
 * - phone: 12 minutes at 29.97 fps, 13 Mbit/s (1.2 GB), a keyframe every 34 frames (1.13 s),
 *   AAC at 192 kbit/s, 741 KB of index;
 * - camera: 5 minutes at 25 fps, 24 Mbit/s (0.9 GB), a keyframe every 12 frames (0.48 s, a
 *   camcorder's GOP), AAC at 256 kbit/s.
 */
const RECORDERS = {
  phone: { rate: "30000/1001", gop: 34, bitrate: "13M", audio: "192k", copies: 24 },
  camera: { rate: "25", gop: 12, bitrate: "24M", audio: "256k", copies: 10 },
} as const;

async function recorderInputs(kind: keyof typeof RECORDERS): Promise<{ faststart: string; moovAtEnd: string; makeS?: number }> {
  const r = RECORDERS[kind];
  const clip = join(LARGE_DIR, `${kind}-b-clip.mp4`);
  const faststart = join(LARGE_DIR, `${kind}-b-faststart.mp4`);
  const moovAtEnd = join(LARGE_DIR, `${kind}-b-moov-at-end.mp4`);
  const made = await stat(faststart).then((s) => s.size >= 5e8, () => false);
  if (made) return { faststart, moovAtEnd };
  log(`making the 1080p ${kind}-like inputs (once, cached in bench/.media/large)`);
  const started = performance.now();
  await exec("ffmpeg", [
    "-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=s=1920x1080:r=${r.rate}:d=30,noise=alls=20:allf=t`, "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=30",
    "-c:v", "libx264", "-preset", "superfast", "-profile:v", "high", "-pix_fmt", "yuv420p", "-bf", "2", "-g", String(r.gop), "-keyint_min", String(r.gop), "-sc_threshold", "0",
    "-b:v", r.bitrate, "-maxrate", r.bitrate, "-bufsize", r.bitrate, "-c:a", "aac", "-b:a", r.audio, "-shortest", clip,
  ]);
  await exec("ffmpeg", ["-v", "error", "-y", "-stream_loop", String(r.copies - 1), "-i", clip, "-c", "copy", moovAtEnd]);
  await exec("ffmpeg", ["-v", "error", "-y", "-i", moovAtEnd, "-c", "copy", "-movflags", "+faststart", faststart]);
  const makeS = (performance.now() - started) / 1000;
  log(`  made in ${Math.round(makeS)} s`);
  return { faststart, moovAtEnd, makeS };
}

async function runJob(table: JobTable, type: JobType, params: Record<string, unknown>): Promise<{ ms: number; state: ProcessorJobState }> {
  const id = `bench_${type}_${Math.random().toString(36).slice(2)}`;
  const started = performance.now();
  table.start({ id, type, params: jobTypes[type].params.parse(params) as never });
  let state = table.get(id)!;
  while (state.state === "running") {
    await new Promise((resolve) => setTimeout(resolve, 5));
    state = table.get(id)!;
  }
  const ms = performance.now() - started;
  if (state.state !== "completed") throw new Error(`bench job ${type} ended ${state.state}: ${JSON.stringify(state)}`);
  await table.remove(id);
  return { ms, state };
}

/** Resolves once `count` ready processes of each kind (image tools too) wait again (a taken one is replaced shortly after it ends); gives up after 10 s. */
async function readyToolsRefilled(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  const full = () => readyCounts().probes >= count && readyCounts().grabs >= count && readyImageToolsWaiting() >= count;
  while (!full() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  // Their start's CPU is spent once they wait on their request: a moment more for the last to get there.
  await new Promise((resolve) => setTimeout(resolve, 100));
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** CPU time (ms) of this process, and of its ended child processes (Linux's /proc/self/stat cutime + cstime, in clock ticks of 10 ms; NaN elsewhere). */
function cpuNow(): { process: number; children: number } {
  const usage = process.cpuUsage();
  let children = NaN;
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    children = (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    // Not Linux: the children's CPU is not reported.
  }
  return { process: (usage.user + usage.system) / 1000, children };
}

/** `work`'s wall time and the CPU it took, in this process and in the child processes it ran (ms). */
async function cpuTimed(work: () => Promise<unknown>): Promise<{ ms: number; process: number; children: number }> {
  const before = cpuNow();
  const ms = await timed(work);
  const after = cpuNow();
  return { ms, process: after.process - before.process, children: after.children - before.children };
}

export async function measureLargeInputs(quick: boolean): Promise<LargeInputsResult> {
  const files = await largeInputs();
  const phone = await recorderInputs("phone");
  const camera = await recorderInputs("camera");
  const work = join(tmpdir(), `media-jobs-bench-large-${process.pid}`);
  await mkdir(work, { recursive: true });
  const config = loadConfig({ WORK_DIR: join(work, "jobs"), ALLOW_PRIVATE_NETWORK_INPUTS: "true" }, tmpdir());
  const table = new JobTable(config);
  // As the processor runs (server.ts): ffprobe, ffmpeg and image tools started before the jobs.
  await startReadyTools(config.READY_PROCESSES, join(work, "ready"), readyKinds, table.identities, () => table.running > 0);
  await startReadyImageTools(config.READY_PROCESSES, join(work, "ready-images"), table.identities);
  const origin = await startRangeServer();
  const signal = new AbortController().signal;
  const limits = { signal, timeoutMs: 30 * 60_000, task: "bench" };
  const runs = quick ? 1 : 3;
  const thumbnailRuns = quick ? 1 : 7;
  const rows: LargeInputRow[] = [];
  try {
    const served = async (file: string, behaviour: Behaviour, type: JobType, params: Record<string, unknown>) => {
      origin.reset();
      const url = origin.serve(`/${Math.random().toString(36).slice(2)}.mp4`, file, behaviour);
      const { ms } = await runJob(table, type, { url, ...params });
      return { ms, bytes: origin.bytesServed, requests: origin.requests.length };
    };

    // A thumbnail at 60 s: the job against ffmpeg writing the JPEG from the local copy.
    for (const [input, file, most] of [
      ["1 GB MP4, index at the start", files.faststart, 0.02],
      ["1 GB MP4, index at the end", files.moovAtEnd, 0.05],
      ["1.2 GB 1080p phone video, index at the start", phone.faststart, 0.02],
      ["1.2 GB 1080p phone video, index at the end", phone.moovAtEnd, 0.02],
      ["0.9 GB 1080p camera video, index at the start", camera.faststart, 0.02],
      ["0.9 GB 1080p camera video, index at the end", camera.moovAtEnd, 0.02],
    ] as const) {
      const size = (await stat(file)).size;
      const params = { timestamp: 60, format: "jpg", quality: 80 } as const;
      const jobMs: number[] = [];
      const toolMs: number[] = [];
      let last = { bytes: 0, requests: 0 };
      // Sub-second runs: more of them, so one run slowed by the machine moves the median less.
      for (let i = 0; i < thumbnailRuns; i++) {
        // Each run starts on an idle processor: its ready probes replaced (not starting beside the job or the tool).
        await readyToolsRefilled(config.READY_PROCESSES);
        const job = await served(file, { kind: "ranges" }, "videoThumbnail", params);
        jobMs.push(job.ms);
        last = job;
        await readyToolsRefilled(config.READY_PROCESSES);
        toolMs.push(await timed(() => exec("ffmpeg", ["-v", "error", "-y", "-ss", "60", "-i", file, "-frames:v", "1", "-q:v", "3", join(work, "thumb.jpg")])));
      }
      const row = { job: "videoThumbnail at 60 s", input, inputBytes: size, jobMs: median(jobMs), toolMs: median(toolMs), servedBytes: last.bytes, servedShare: last.bytes / size, requests: last.requests, runs: thumbnailRuns };
      rows.push({ ...row, goal: `≤ ${most * 100} % fetched, ≤ 1.5× the tool`, met: row.servedShare <= most && row.jobMs <= 1.5 * row.toolMs });
      log(`  thumbnail, ${input}: ${Math.round(row.jobMs)} ms against ${Math.round(row.toolMs)} ms (${(row.jobMs / row.toolMs).toFixed(2)}×), ${(row.servedShare * 100).toFixed(2)} % fetched in ${row.requests} requests`);
    }

    // extractAudio and compressVideo of the whole file: the job against the download and the tool measured apart.
    const size = (await stat(files.moovAtEnd)).size;
    const probe = await probeMedia(files.faststart, signal);
    const downloadOnce = async () => {
      const destination = join(work, "downloaded.mp4");
      origin.reset();
      const url = origin.serve("/download.mp4", files.faststart);
      const took = await cpuTimed(() => fetchInput(url, destination, { limits: config, signal }));
      await rm(destination, { force: true });
      return took;
    };
    const downloads: number[] = [];
    for (const [type, params, tool] of [
      ["extractAudio", { quality: "medium" }, () => runFfmpeg(audioArgs({ quality: "medium" }, probe, { input: files.faststart, output: join(work, "audio.mp3") }), limits)],
      [
        "compressVideo",
        { codec: "h264", quality: "low", maxWidth: 320 },
        () => runFfmpeg(videoArgs({ codec: "h264", quality: "low", maxWidth: 320 } as never, probe, { input: files.faststart, output: join(work, "video.mp4") }), limits),
      ],
    ] as const) {
      const long = type === "compressVideo" && !quick ? 1 : runs;
      const jobMs: number[] = [];
      const toolMs: number[] = [];
      const downloadMs: number[] = [];
      const cpu = { downloadMs: [] as number[], toolMs: [] as number[], jobProcessMs: [] as number[], jobToolsMs: [] as number[] };
      let last = { bytes: 0, requests: 0 };
      for (let i = 0; i < long; i++) {
        const download = await downloadOnce();
        downloadMs.push(download.ms);
        cpu.downloadMs.push(download.process);
        const alone = await cpuTimed(tool);
        toolMs.push(alone.ms);
        cpu.toolMs.push(alone.children);
        let job = { ms: 0, bytes: 0, requests: 0 };
        const inJob = await cpuTimed(async () => (job = await served(files.faststart, { kind: "ranges" }, type, params)));
        cpu.jobProcessMs.push(inJob.process);
        cpu.jobToolsMs.push(inJob.children);
        jobMs.push(job.ms);
        last = job;
      }
      downloads.push(...downloadMs);
      const row = {
        job: type, input: "1 GB MP4, index at the start", inputBytes: size, jobMs: median(jobMs), toolMs: median(toolMs), downloadMs: median(downloadMs), servedBytes: last.bytes, servedShare: last.bytes / size, requests: last.requests, runs: long,
        cpu: { downloadMs: median(cpu.downloadMs), toolMs: median(cpu.toolMs), jobProcessMs: median(cpu.jobProcessMs), jobToolsMs: median(cpu.jobToolsMs) },
      };
      rows.push({ ...row, goal: "≤ 1.05× (download + tool)", met: row.jobMs <= 1.05 * (row.downloadMs + row.toolMs) });
      log(`  ${type}: ${Math.round(row.jobMs)} ms against ${Math.round(row.downloadMs)} + ${Math.round(row.toolMs)} ms; CPU ${JSON.stringify(row.cpu, (_, v: unknown) => (typeof v === "number" ? Math.round(v) : v))}`);
    }

    // An origin that ignores Range: the whole file comes, and the tools read it as it arrives.
    // Never slower than before issue 27, when the download came first and the tool after it.
    {
      const [faststart] = rows;
      const jobMs: number[] = [];
      let last = { bytes: 0, requests: 0 };
      for (let i = 0; i < runs; i++) {
        await readyToolsRefilled(config.READY_PROCESSES);
        const job = await served(files.faststart, { kind: "ignore-range" }, "videoThumbnail", { timestamp: 60, format: "jpg", quality: 80 });
        jobMs.push(job.ms);
        last = job;
      }
      const row = { job: "videoThumbnail at 60 s", input: "1 GB MP4, origin ignores Range", inputBytes: size, jobMs: median(jobMs), toolMs: faststart!.toolMs, downloadMs: median(downloads), servedBytes: last.bytes, servedShare: last.bytes / size, requests: last.requests, runs };
      rows.push({ ...row, goal: "≤ download + tool", met: row.jobMs <= row.downloadMs + row.toolMs });
      log(`  thumbnail, origin ignores Range: ${Math.round(row.jobMs)} ms against ${Math.round(row.downloadMs)} + ${Math.round(row.toolMs)} ms`);
    }

    // Short jobs: a 6 s clip, the job against its tool on the local copy.
    const clip = files.short;
    const clipSize = (await stat(clip)).size;
    const clipProbe = await probeMedia(clip, signal);
    for (const [type, params, tool] of [
      ["extractAudio", { quality: "medium" }, () => runFfmpeg(audioArgs({ quality: "medium" }, clipProbe, { input: clip, output: join(work, "clip.mp3") }), limits)],
      [
        "videoThumbnail",
        { timestamp: 5, format: "jpg", quality: 80 },
        () => {
          // A plain JPEG: ffmpeg writes it (frames.ts jpegByFfmpeg), as the job does.
          const output = join(work, "clip.jpg");
          const args = thumbnailArgs({ timestamp: 5, format: "jpg", quality: 80 } as never, clipProbe, { input: clip, output, time: 5 });
          return grabJpeg({ input: { source: clip }, workDir: work, signal, config }, clipProbe, args, { time: 5, written: output, output, box: frameBox(clipProbe.video!) });
        },
      ],
    ] as const) {
      const jobMs: number[] = [];
      const toolMs: number[] = [];
      let last = { bytes: 0, requests: 0 };
      for (let i = 0; i < (quick ? 1 : 7); i++) {
        await readyToolsRefilled(config.READY_PROCESSES);
        toolMs.push(await timed(tool));
        await readyToolsRefilled(config.READY_PROCESSES);
        const job = await served(clip, { kind: "ranges" }, type, params);
        jobMs.push(job.ms);
        last = job;
      }
      const row = { job: type, input: "6 s 320×240 clip", inputBytes: clipSize, jobMs: median(jobMs), toolMs: median(toolMs), servedBytes: last.bytes, servedShare: last.bytes / clipSize, requests: last.requests, runs: jobMs.length };
      rows.push({ ...row, goal: "≤ +100 ms over the tool", met: row.jobMs - row.toolMs <= 100 });
      log(`  short ${type}: ${Math.round(row.jobMs)} ms against ${Math.round(row.toolMs)} ms`);
    }

    const starts: number[] = [];
    for (let i = 0; i < 7; i++) starts.push(await timed(() => exec("ffmpeg", ["-version"])));
    return { rows, ffmpegStartMs: median(starts), downloadMBps: size / 1e6 / (median(downloads) / 1000) };
  } finally {
    stopReadyTools();
    stopReadyImageTools();
    await origin.close();
    await rm(work, { recursive: true, force: true });
  }
}

const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
const cpuS = (n: number) => (Number.isFinite(n) ? `${(n / 1000).toFixed(1)} s` : "not measured");

/** Where a whole read's CPU went: what the download and the overlapped job cost beside the tool, on the same cores. */
function cpuLine(row: LargeInputRow): string {
  const c = row.cpu!;
  return `- \`${row.job}\` CPU time: the download alone ${cpuS(c.downloadMs)} (the origin and the copy, one process), the tool alone ${cpuS(c.toolMs)}; as a job ${cpuS(c.jobToolsMs)} in the tools (ffprobe, ffmpeg) and ${cpuS(c.jobProcessMs)} in the origin, the copy and its loopback serve.`;
}

export function largeInputsSection(r: LargeInputsResult, title: string): string {
  const rows = r.rows.map((row) =>
    `| \`${row.job}\` | ${row.input} | ${ms(row.jobMs)} | ${ms(row.toolMs)}${row.downloadMs === undefined ? "" : ` + ${ms(row.downloadMs)} download`} | ${(row.jobMs / (row.toolMs + (row.downloadMs ?? 0))).toFixed(2)}× | ${(row.servedShare * 100).toFixed(2)} % (${(row.servedBytes / 1e6).toFixed(1)} MB, ${row.requests} request${row.requests === 1 ? "" : "s"}) | ${row.goal} | ${row.met ? "yes" : "**no**"} |`,
  );
  return `## ${title}

The processor's own job table (no Worker), each input on a range-counting origin over
loopback (\`test/support/range-server.ts\`), against the raw tool on a local copy of the same
file, in the same run (\`bench/large-inputs.ts\`; medians of ${r.rows[0]?.runs ?? 0} runs for a thumbnail
or a short job, 3 for a whole read and for the thumbnail on an origin that ignores Range, one
for the 1 GB encode). The processor runs as in
production, with its ready processes (\`READY_PROCESSES\`,
[job-types.md](job-types.md#processes-started-before-the-job)); each job and each tool run
starts once they all wait again. The 1 GB inputs: 5 minutes of 640×360 at about 28 Mbit/s,
a keyframe every second, AAC audio. The 1080p inputs are written as recorders write them
(H.264 High profile, two B-frames, grain over a test pattern so the bitrate is real, AAC):
the phone's 12 minutes at 29.97 fps and 13 Mbit/s with a keyframe every 34 frames (1.13 s)
and 741 KB of index; the camera's 5 minutes at 25 fps and 24 Mbit/s with a keyframe every 12
frames (0.48 s). Each is 30 s encoded once and joined without re-encoding; making them takes
about 1 and 1.3 minutes on these two cores (\`bench/large-inputs.ts\` recorderInputs). The
machine's floor: one start of ffmpeg costs ${ms(r.ffmpegStartMs)}
(\`ffmpeg -version\`), a whole download over loopback runs at ${Math.round(r.downloadMBps)} MB/s.

| job | input | as a job | the tool alone | ratio | fetched | target | met |
|---|---|--:|--:|--:|--:|---|---|
${rows.join("\n")}

${r.rows.filter((row) => row.cpu).map((row) => cpuLine(row)).join("\n")}

"As a job" is the processor's start to its end, probe included. A thumbnail's tool alone is
ffmpeg seeking in the local file and writing the JPEG itself (\`-ss 60 -i … -frames:v 1\`,
its start included), without a probe; a short job's is the processor's own grab and
encode. With tools isolated (as here and in production), a tool's requests to its relay carry
its attempt's secret (its first is asked for it, one more round trip); a range is answered in
parts (512 KiB, doubling while the tool reads on), each a connection of its own: a thumbnail
at 60 s makes 8 (index at the start) to 13 (at the end).
An origin that ignores Range sends the whole file in one answer: the tools read it as it
arrives, and the job closes it once the frame is out: what comes is the bytes up to the frame,
and what arrived while it was grabbed. Its target is how every job ran before: the whole download, then the tool.
Where a thumbnail's time goes, and why the probe stays: [architecture.md](architecture.md#how-the-processor-reads-an-input).`;
}

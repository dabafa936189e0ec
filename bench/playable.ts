// Section 10 (issue 35 item 3): how soon a videoAdaptive job plays. The job runs on the
// processor's own job table (as section 8's), its input on a Range origin over loopback, its
// uploads and its announcement taken by a stand-in runner over loopback (the bytes counted,
// not stored): the time from the attempt's start to `playable` (the top rendition copied,
// uploaded with its master, announced), and to the whole ladder uploaded.
// `npm run bench -- --only playable`.
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobTypes } from "../src/contract/registry.ts";
import { loadConfig } from "../container/src/config.ts";
import { JobTable } from "../container/src/jobs.ts";
import { startRangeServer } from "../test/support/range-server.ts";
import { table } from "./format.ts";
import { MEDIA_DIR } from "./media.ts";
import { exec, log } from "./support.ts";

export interface PlayableRow {
  input: string;
  durationS: number;
  inputBytes: number;
  /** The attempt's start until the runner took its playable announcement (ms). */
  playableMs: number;
  /** The attempt's start until it completed, every output uploaded (ms). */
  completedMs: number;
  /** Bytes uploaded before the announcement (the top rendition and its playlists). */
  publishedBytes: number;
  renditions: string[];
}

export interface PlayableResult {
  rows: PlayableRow[];
  /** The target: playable within this many ms of the job's start. */
  targetMs: number;
}

const TARGET_MS = 15_000;

/**
 * 10 minutes of 1920×1080 H.264 (x264 ultrafast, about 4 Mbit/s, a keyframe every 2 s, 25 fps)
 * with AAC-LC: 10 s encoded once, then 60 copies joined without re-encoding (seconds, not minutes).
 */
async function longInput(): Promise<string> {
  const dir = join(MEDIA_DIR, "playable");
  const file = join(dir, "1080p-10min.mp4");
  if (await stat(file).then(() => true, () => false)) return file;
  await mkdir(dir, { recursive: true });
  const piece = join(dir, "piece.mp4");
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=10",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "50", "-b:v", "4M", "-maxrate", "5M", "-bufsize", "8M", "-c:a", "aac", "-b:a", "128k", "-shortest", piece,
  ]);
  const list = join(dir, "list.txt");
  await writeFile(list, Array.from({ length: 60 }, () => `file '${piece}'`).join("\n"));
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", "-movflags", "+faststart", file]);
  await rm(piece);
  await rm(list);
  return file;
}

/** A stand-in for the runner's callback: uploads counted, the announcement's time kept. */
async function standInRunner() {
  const seen = { uploadedBytes: 0, publishedBytes: 0, playableAt: undefined as number | undefined };
  const server = createServer(async (req, res) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    if (req.method === "PUT") {
      seen.uploadedBytes += bytes;
      return void res.writeHead(201).end();
    }
    if (req.url?.endsWith("/internal/processor-playable") && seen.playableAt === undefined) {
      seen.playableAt = performance.now();
      seen.publishedBytes = seen.uploadedBytes;
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, origin, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

export async function measurePlayable(): Promise<PlayableResult> {
  const file = await longInput();
  const work = join(tmpdir(), `media-jobs-bench-playable-${process.pid}`);
  await mkdir(work, { recursive: true });
  const config = loadConfig({ WORK_DIR: join(work, "jobs"), ALLOW_PRIVATE_NETWORK_INPUTS: "true" }, tmpdir());
  const jobs = new JobTable(config);
  const origin = await startRangeServer();
  const runner = await standInRunner();
  try {
    const id = `bench_playable_${Math.random().toString(36).slice(2)}`;
    const url = origin.serve("/1080p-10min.mp4", file);
    const params = jobTypes.videoAdaptive.params.parse({ url });
    const started = performance.now();
    jobs.start({ id, type: "videoAdaptive", params: params as never, callback: { url: `${runner.origin}/internal/processor-events`, token: "b".repeat(43), outputs: `${runner.origin}/internal/processor-outputs/${id}` } });
    let state = jobs.get(id)!;
    while (state.state === "running") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = jobs.get(id)!;
    }
    const completedMs = performance.now() - started;
    if (state.state !== "completed") throw new Error(`bench videoAdaptive ended ${state.state}: ${JSON.stringify(state)}`);
    if (runner.seen.playableAt === undefined) throw new Error("the job completed without announcing playable");
    const result = state.result as { renditions: { width: number; height: number }[]; duration: number };
    const row: PlayableRow = {
      input: "10 min 1920×1080 H.264 (4 Mbit/s, a keyframe every 2 s) + AAC-LC",
      durationS: result.duration,
      inputBytes: (await stat(file)).size,
      playableMs: runner.seen.playableAt - started,
      completedMs,
      publishedBytes: runner.seen.publishedBytes,
      renditions: result.renditions.map((r) => `${r.width}×${r.height}`),
    };
    log(`  playable after ${Math.round(row.playableMs)} ms, completed after ${Math.round(completedMs)} ms`);
    await jobs.remove(id);
    return { rows: [row], targetMs: TARGET_MS };
  } finally {
    await runner.close();
    await origin.close();
    await rm(work, { recursive: true, force: true });
  }
}

export function playableSection(r: PlayableResult, title: string): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `## ${title}

A \`videoAdaptive\` job with the default options (three renditions up to 1080p, 6-second
segments) on the processor's own job table, as section 8 runs its jobs: the input on a Range
origin over loopback, the uploads and the \`playable\` announcement taken by a stand-in runner
over loopback (bytes counted, not stored; the real path stores them in R2 through the Worker,
\`src/runner/output-upload.ts\`). The job's start is the attempt's start on the processor; the
queue and a cold container come before it (sections 4 and 6b). Target: playable within
${s(r.targetMs)} of the start.

${table(
  ["input", "bytes", "playable after", "published then", "completed after", "renditions", "target met"],
  r.rows.map((row) => [row.input, `${(row.inputBytes / 1e6).toFixed(0)} MB`, s(row.playableMs), `${(row.publishedBytes / 1e6).toFixed(0)} MB`, s(row.completedMs), row.renditions.join(", "), row.playableMs <= r.targetMs ? "yes" : "**no**"]),
)}

Playable is the top rendition as a stream copy of the input (no encode), its playlist and a
master naming only it, uploaded and announced; the other renditions are encoded after it, so
"completed after" is the whole ladder's encode (docs/job-types.md: playable early).`;
}

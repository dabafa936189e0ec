// The containers tier's harness: `wrangler dev` with containers on a real Docker engine
// (test/support/service.ts), inputs served on the Docker bridge gateway (a container
// cannot reach the host's 127.0.0.1), an API key, and helpers to drive jobs and look at
// the containers. Docker is found as wrangler finds it: WRANGLER_DOCKER_BIN, else
// `docker` on PATH; DOCKER_HOST etc. come from the environment (docs/deploy.md).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { buildPdf, photoJpeg } from "../../container/test/pdf-fixtures.ts";
import { startService, type Service } from "../support/service.ts";

const exec = promisify(execFile);
const docker = process.env.DOCKER_REAL ?? "docker";

/** Runs the engine's CLI; the shim in WRANGLER_DOCKER_BIN only rewrites builds, so plain docker is used here. */
export async function dockerCli(...args: string[]): Promise<string> {
  const { stdout } = await exec(docker, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

/** The address containers reach the host at: the default bridge's gateway. */
async function bridgeGateway(): Promise<string> {
  return dockerCli("network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}");
}

async function ffmpeg(args: string[]): Promise<void> {
  await exec("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args]);
}

/** The inputs: every job type has one; `long.mp4` keeps an encode busy. */
async function makeFixtures(dir: string): Promise<void> {
  const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  // Its index first (faststart): a tool reads it as it arrives, so a job given it held
  // half-way (Tier.hold) runs its ffmpeg on the first half and waits for the rest.
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:d=6", ...h264, "-c:a", "aac", "-shortest", "-movflags", "+faststart", join(dir, "clip.mp4")]);
  // 640×360, 120 s: an H.265 "high" encode of it takes minutes on one core.
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=120", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:d=120", ...h264, "-c:a", "aac", "-shortest", join(dir, "long.mp4")]);
  const photo = await photoJpeg(1600, 1067);
  await writeFile(join(dir, "photo.jpg"), photo.data);
  await writeFile(join(dir, "doc.pdf"), buildPdf([{ lines: ["containers tier"], jpeg: await photoJpeg(1200, 900) }]));
}

/** A log line of the Worker (src/lib/log.ts): one JSON object. */
export type LogLine = { level: string; message: string; [field: string]: unknown };

export interface Tier {
  service: Service;
  /** The Worker's log lines so far, in order (wrangler dev runs with --log-level log to print them). */
  logs(): LogLine[];
  /** API key of a pro organization. */
  key: string;
  /** Origin serving the fixtures to containers, e.g. http://172.17.0.1:40123. */
  mediaUrl: string;
  /**
   * Fixture `name` at a URL whose downloads stop half-way until `release()`: a job given it
   * holds its seat, its ffmpeg running on the first half (clip.mp4) and waiting for the rest,
   * for as long as the test needs whatever the machine's speed (under ffmpeg's own limit,
   * container/src/tools/ffmpeg.ts ffmpegTimeoutMs: 3 minutes for clip.mp4). Once released,
   * held downloads finish and later ones are served whole. `stop()` releases every hold.
   */
  hold(name: string): Hold;
  /** Fixture bytes, by name, for comparing with outputs. */
  fixture(name: string): Promise<Buffer>;
  stop(): Promise<void>;
}

export interface Hold {
  url: string;
  release(): void;
}

/**
 * While a download is held, one more byte this often: the processor gives up on an input
 * that sends nothing for INPUT_IDLE_TIMEOUT_MS (30 s, container/src/config.ts), and a hold
 * lasts as long as its test needs.
 */
const HELD_BYTE_EVERY_MS = 5_000;

interface HoldState {
  open: boolean;
  opened: Promise<void>;
  release: () => void;
}

/** Sends the first half of `body`, then a byte every HELD_BYTE_EVERY_MS, then the rest once `hold` opens. */
async function sendHeld(res: ServerResponse, body: Buffer, hold: HoldState): Promise<void> {
  // The reader may be gone by the release (its container killed or drained).
  res.on("error", () => undefined);
  res.writeHead(200, { "content-length": body.length });
  let sent = Math.floor(body.length / 2);
  res.write(body.subarray(0, sent));
  const trickle = setInterval(() => {
    if (!res.destroyed && sent < body.length - 1) res.write(body.subarray(sent, ++sent));
  }, HELD_BYTE_EVERY_MS);
  await hold.opened;
  clearInterval(trickle);
  if (!res.destroyed) res.end(body.subarray(sent));
}

export async function startTier(options: { sleepAfter: string; instances: number; jobsPerInstance: number; vars?: Record<string, string> }): Promise<Tier> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-containers-"));
  let server: Server | undefined;
  let service: Service | undefined;
  const holds = new Map<string, HoldState>();
  const before = new Set((await dockerCli("ps", "-aq", "--filter", "name=workerd-")).split("\n").filter(Boolean));
  // The Worker's JSON log lines, whole lines only: output comes in chunks.
  const logs: LogLine[] = [];
  let partial = "";
  const readLogLines = (text: string) => {
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      // wrangler prints warnings and errors inside colour codes ("✘ [ERROR] {…}\x1b[0m").
      const json = line.slice(line.indexOf("{"), line.lastIndexOf("}") + 1);
      if (!json.startsWith("{")) continue;
      try {
        const parsed = JSON.parse(json) as LogLine;
        if (typeof parsed.message === "string") logs.push(parsed);
      } catch {
        // Not one of the Worker's lines.
      }
    }
  };
  const stop = async () => {
    // wrangler dev's log, for reading after a failure.
    if (service) await mkdir("test-output", { recursive: true }).then(() => writeFile("test-output/containers-wrangler.log", service!.output()));
    await service?.stop();
    // A held download would keep the server from closing.
    for (const hold of holds.values()) hold.release();
    if (server) await new Promise<void>((done) => server!.close(() => done()));
    // workerd leaves each instance's sidecar behind when it exits; remove what this run made.
    const ids = (await dockerCli("ps", "-aq", "--filter", "name=workerd-").catch(() => "")).split("\n").filter((id) => id && !before.has(id));
    if (ids.length) await dockerCli("rm", "-f", ...ids).catch(() => "");
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await makeFixtures(dir);
    const host = await bridgeGateway();
    server = createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://media");
      const name = url.pathname.slice(1);
      const body = await readFile(join(dir, name)).catch(() => null);
      if (!body || name.includes("/")) return void res.writeHead(404).end("not found");
      const hold = holds.get(url.searchParams.get("hold") ?? "");
      if (hold && !hold.open) return sendHeld(res, body, hold);
      res.writeHead(200, { "content-length": body.length }).end(body);
    });
    await new Promise<void>((done) => server!.listen(0, host, done));
    const mediaUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
    // The first start builds the image (minutes when nothing is cached).
    service = await startService({ containers: options, vars: options.vars, startTimeout: 15 * 60_000, logLevel: "log", onOutput: readLogLines });
    const res = await fetch(`${service.baseUrl}/admin/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ org: "containers-tier", plan: "pro" }),
    });
    if (res.status !== 201) throw new Error(`creating an API key: ${res.status} ${await res.text()}`);
    const { key } = (await res.json()) as { key: string };
    const hold = (name: string): Hold => {
      const label = `hold-${holds.size + 1}`;
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const state: HoldState = {
        open: false,
        opened,
        release: () => {
          state.open = true;
          open();
        },
      };
      holds.set(label, state);
      return { url: `${mediaUrl}/${name}?hold=${label}`, release: state.release };
    };
    return { service, logs: () => logs, key, mediaUrl, hold, fixture: (name) => readFile(join(dir, name)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface ApiJob {
  id: string;
  status: string;
  createdAt: string;
  completedAt?: string;
  result?: Record<string, any>;
  error?: { code: string; message: string };
  timings: Record<string, number | null>;
}

/**
 * How job `id` ended, as the Worker logged it: its "job finished" line (src/runner/finish.ts,
 * with the runner's `endHeard`), and the lines that say it did not end as it happened:
 * outputs the runner had to copy (src/runner/outputs.ts) and a processor that could not push.
 */
export async function howItEnded(tier: Tier, id: string): Promise<{ finished: LogLine; problems: LogLine[] }> {
  const finished = await until(`the "job finished" line of ${id}`, async () => tier.logs().find((l) => l.message === "job finished" && l.job === id), 30_000, 50);
  const problems = tier.logs().filter((l) => l.job === id && /copying it|cannot push|collecting outputs failed/.test(l.message));
  return { finished, problems };
}

export async function api(tier: Tier, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${tier.service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${tier.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

export async function createJob(tier: Tier, type: string, input: string, options: Record<string, unknown> = {}): Promise<string> {
  const { status, json } = await api(tier, "POST", "/v1/jobs", { type, input, options });
  if (status !== 201 && status !== 202) throw new Error(`creating ${type}: ${status} ${JSON.stringify(json)}`);
  return json.id;
}

/** Polls until `check` holds or the deadline passes (never a fixed sleep). */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, deadlineMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function waitForEnd(tier: Tier, id: string, deadlineMs = 5 * 60_000): Promise<ApiJob> {
  return until(`job ${id} to end`, async () => {
    const { json } = await api(tier, "GET", `/v1/jobs/${id}`);
    return ["completed", "failed", "cancelled"].includes(json.status) ? (json as ApiJob) : undefined;
  }, deadlineMs);
}

export async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`download ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** ffprobe of the bytes, from a file: a pipe hides an MP3's duration. */
export async function ffprobe(bytes: Buffer): Promise<{ format: { format_name: string; duration: string }; streams: { codec_type: string; codec_name: string; width?: number; height?: number }[] }> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-probe-"));
  try {
    await writeFile(join(dir, "output"), bytes);
    const { stdout } = await exec("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", join(dir, "output")]);
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const imageMeta = (bytes: Buffer) => sharp(bytes).metadata();

/**
 * Whether a container's process list (appContainers' `processes`) has a job's ffmpeg running:
 * not one of the ready ffmpeg processes that wait for jobs, which write under `.ready/`
 * (container/src/tools/ready-tools.ts). With `attempt`, that attempt's: its command line
 * names the attempt's work directory.
 */
export function runsJobFfmpeg(processes: string, attempt?: string): boolean {
  return processes.split("\n").some((line) => /\bffmpeg\b/.test(line) && !line.includes("/.ready/") && (attempt === undefined || line.includes(attempt)));
}

/** The app container running attempt `attempt`'s ffmpeg, once there is one. */
export function encodingAttempt(attempt: string, deadlineMs = 180_000): Promise<{ id: string; name: string; processes: string }> {
  return until(`ffmpeg of ${attempt} running in a container`, async () => (await appContainers()).find((c) => runsJobFfmpeg(c.processes, attempt)), deadlineMs);
}

/** The running app container whose processor ran attempt `attempt`: its "job finished" log line (container/src/jobs.ts) names it. */
export function containerThatRan(attempt: string, deadlineMs = 30_000): Promise<string> {
  return until(`the container that ran ${attempt}`, async () => {
    for (const c of await appContainers()) {
      if ((await dockerCli("logs", c.id).catch(() => "")).includes(`"job":${JSON.stringify(attempt)}`)) return c.id;
    }
    return undefined;
  }, deadlineMs);
}

/** Running app containers (not workerd's `-proxy` sidecars), with their processes. */
export async function appContainers(): Promise<{ id: string; name: string; processes: string }[]> {
  const lines = (await dockerCli("ps", "--filter", "name=workerd-", "--format", "{{.ID}} {{.Names}}")).split("\n").filter(Boolean);
  const apps = lines.map((l) => l.split(" ")).filter(([, name]) => !name!.endsWith("-proxy"));
  return Promise.all(
    apps.map(async ([id, name]) => ({ id: id!, name: name!, processes: await dockerCli("top", id!, "-eo", "pid,args").catch(() => "") })),
  );
}

/** The row as D1 holds it (wrangler dev's local state). */
export async function jobRow(tier: Tier, id: string): Promise<{ status: string; attempt: number }> {
  const { stdout } = await exec(
    process.execPath,
    ["node_modules/wrangler/bin/wrangler.js", "d1", "execute", "DB", "--local", "--persist-to", tier.service.statePath, "--json", "--command", `SELECT status, attempt FROM jobs WHERE id = '${id.replace(/'/g, "")}'`],
    { env: { ...process.env, CI: "true", NO_COLOR: "1" } },
  );
  return JSON.parse(stdout)[0].results[0];
}

/**
 * Breaks (or, with `repair`, mends) the push path of app container `name`: its sidecar
 * (`<name>-proxy`, whose network namespace the app shares) refuses every connection to the
 * address the runner's host resolves to (11.0.0.1, the sidecar's synthetic answer), an open
 * one included, as a platform change or a broken route would. Inputs on the Docker bridge
 * are not touched.
 */
export async function breakPushPath(name: string, repair = false): Promise<void> {
  const rule = ["OUTPUT", "-p", "tcp", "-m", "conntrack", "--ctorigdst", "11.0.0.1", "-j", "REJECT", "--reject-with", "tcp-reset"];
  await dockerCli("exec", "-u", "root", `${name}-proxy`, "iptables", repair ? "-D" : "-I", ...rule);
}

/**
 * A signed link read as a player reads it: the whole file, or with `range` ([offset,
 * length]) the bytes a playlist's BYTERANGE names, which must come back 206 with exactly
 * that many bytes. Returns the bytes and the content type served.
 */
export async function fetchLink(url: string, range?: [offset: number, length: number]): Promise<{ bytes: Buffer; type: string | null }> {
  const res = await fetch(url, range ? { headers: { range: `bytes=${range[0]}-${range[0] + range[1] - 1}` } } : {});
  if (res.status !== (range ? 206 : 200)) throw new Error(`GET ${url}${range ? ` (bytes ${range[0]}+${range[1]})` : ""}: ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (range && bytes.length !== range[1]) throw new Error(`GET ${url}: ${bytes.length} bytes for a range of ${range[1]}`);
  return { bytes, type: res.headers.get("content-type") };
}

/** The luma of the video's frame at `seconds`, one byte a pixel, row by row (ffmpeg decodes it here). */
export async function lumaAt(bytes: Buffer, seconds: number): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-frame-"));
  try {
    await writeFile(join(dir, "video"), bytes);
    const { stdout } = await exec("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", join(dir, "video"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

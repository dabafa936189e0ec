// Starts the whole service for end-to-end tests, the way `npm run dev` runs it: the real
// processor (Node), `wrangler dev` (Miniflare, containers disabled) on free ports with its
// own D1/R2/queue state in a temp dir and the migrations applied, and a media server that
// makes input images with sharp. stop() must always run: it kills wrangler's whole process
// group (wrangler spawns workerd), closes the servers and removes the temp dir.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { startProcessor } from "../../container/src/server.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Run wrangler's JS with this Node (wrangler needs Node 22+; the shebang's `node` may be older).
const wranglerJs = join(root, "node_modules/wrangler/bin/wrangler.js");

export interface Service {
  /** Origin of the Worker, such as http://127.0.0.1:41234 (no trailing slash). */
  baseUrl: string;
  adminToken: string;
  /** Empty when jobs run in containers. */
  processorUrl: string;
  /** The last 200 kB wrangler dev printed. */
  output(): string;
  /** Origin of the media server: GET /image?w=&h=&format=jpeg|png. */
  mediaUrl: string;
  /** wrangler's --persist-to directory (D1 and R2 state); removed by stop(). */
  statePath: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** How long to wait for wrangler dev to answer (ms). */
  startTimeout?: number;
  /** A processor the caller runs (and may kill), instead of one started in this process. */
  processor?: { url: string; token: string };
  /** wrangler's --log-level; warn unless set. */
  logLevel?: "debug" | "info" | "log" | "warn" | "error";
  /** Receives wrangler's output as it comes (the last 200,000 characters are kept anyway). */
  onOutput?: (text: string) => void;
  /**
   * Run jobs in containers built from container/Dockerfile on the Docker engine that
   * wrangler finds (WRANGLER_DOCKER_BIN, DOCKER_HOST… from the environment), instead of a
   * Node processor. Inputs must then be served where containers reach them.
   */
  containers?: { sleepAfter: string; instances: number; jobsPerInstance: number };
  /** More Worker variables (the bench: PROCESSOR_CONCURRENCY). */
  vars?: Record<string, string>;
  /** The Worker's entry point instead of wrangler.toml's `main`, with the same bindings (the bench: bench/worker/index.ts). */
  entry?: string;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function mediaServer(): Promise<Server> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://media");
    if (url.pathname !== "/image") return void res.writeHead(404).end("not found");
    const width = Number(url.searchParams.get("w") ?? 640);
    const height = Number(url.searchParams.get("h") ?? 480);
    // A gradient with noise: compresses like a photo, and looks like something in a preview.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2b6cb0"/><stop offset="1" stop-color="#f6ad55"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#fff" fill-opacity="0.6"/></svg>`;
    const noise = await sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 20 } } }).png().toBuffer();
    const image = sharp(Buffer.from(svg)).composite([{ input: noise, blend: "soft-light" }]);
    const png = url.searchParams.get("format") === "png";
    const body = png ? await image.png().toBuffer() : await image.jpeg({ quality: 92 }).toBuffer();
    res.writeHead(200, { "content-type": png ? "image/png" : "image/jpeg", "content-length": body.length }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return server;
}

/** Runs a command to completion; rejects with its output when it fails. */
function run(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [wranglerJs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output}`))));
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

async function stopChild(child: ChildProcess, deadlineMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  killGroup(child, "SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), deadlineMs);
  await exited;
  clearTimeout(timer);
  // workerd may outlive wrangler's own exit; the group kill reaches it too.
  killGroup(child, "SIGKILL");
}

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const state = await mkdtemp(join(tmpdir(), "media-jobs-e2e-"));
    cleanups.push(() => rm(state, { recursive: true, force: true }));

    const media = await mediaServer();
    cleanups.push(() => new Promise<void>((done) => media.close(() => done())));
    const mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;

    let { url: processorUrl, token: processorToken } = options.processor ?? { url: "", token: randomBytes(16).toString("hex") };
    if (!options.processor && !options.containers) {
      const processor = await startProcessor({ HOST: "127.0.0.1", PORT: "0", PROCESSOR_TOKEN: processorToken, ALLOW_PRIVATE_NETWORK_INPUTS: "true", ISOLATION: "on", LOG_LEVEL: "warn" });
      cleanups.push(() => processor.close());
      processorUrl = `http://127.0.0.1:${processor.port}`;
    }

    const quiet = { CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };
    await run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], quiet);

    const adminToken = randomBytes(16).toString("hex");
    const [port, inspectorPort] = [await freePort(), await freePort()];
    const vars = {
      PROCESSOR_URL: processorUrl,
      PROCESSOR_TOKEN: processorToken,
      FILES_SIGNING_SECRET: randomBytes(16).toString("hex"),
      ADMIN_TOKEN: adminToken,
      DESTINATIONS_KEY: randomBytes(16).toString("hex"),
      ALLOW_PRIVATE_NETWORK_INPUTS: "true",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...(options.containers && {
        CONTAINER_SLEEP_AFTER: options.containers.sleepAfter,
        // wrangler dev does not enforce [[containers]] max_instances: the pool does, from these.
        PROCESSOR_INSTANCES: String(options.containers.instances),
        JOBS_PER_INSTANCE: String(options.containers.jobsPerInstance),
      }),
      ...options.vars,
    };
    const args = [
      "dev",
      ...(options.entry ? [options.entry] : []),
      `--enable-containers=${Boolean(options.containers)}`,
      "--ip", "127.0.0.1",
      "--port", String(port),
      "--inspector-port", String(inspectorPort),
      "--persist-to", state,
      "--show-interactive-dev-session=false",
      "--log-level", options.logLevel ?? "warn",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ];
    // detached: its own process group, so stop() reaches workerd as well.
    const wrangler = spawn(process.execPath, [wranglerJs, ...args], { cwd: root, env: { ...process.env, ...quiet }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-200_000);
      options.onOutput?.(d.toString());
    };
    wrangler.stdout!.on("data", keep);
    wrangler.stderr!.on("data", keep);
    cleanups.push(() => stopChild(wrangler));

    const baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (options.startTimeout ?? 60_000);
    for (;;) {
      if (wrangler.exitCode !== null) throw new Error(`wrangler dev exited (${wrangler.exitCode}) before it was ready:\n${output}`);
      const ready = await fetch(`${baseUrl}/`).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`wrangler dev did not answer on ${baseUrl} in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return { baseUrl, adminToken, processorUrl, mediaUrl, statePath: state, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// The processor as a child process the soak can kill -9 and start again on the same port,
// as a container crash would. Its JSON log is read for each attempt's time in the
// processor ("job finished", with `ms`), and /status is sampled for how many jobs it runs.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/support/service.ts";
import { sleep, until } from "../support.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One attempt as the processor logged it: `<jobId>.<attempt>`, its state and time. */
export interface ProcessorAttempt {
  pid: string;
  state: string;
  ms: number;
}

export interface ChildProcessor {
  url: string;
  token: string;
  /** Finished attempts, from every incarnation's log. */
  attempts: ProcessorAttempt[];
  /** kill -9 of the processor and its ffmpeg/gs children. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Jobs running now, or undefined while it is down. */
  running(): Promise<number | undefined>;
  /** Entries left in its work directory (one per attempt it still holds). */
  leftovers(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startChildProcessor(): Promise<ChildProcessor> {
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  const workDir = await mkdtemp(join(tmpdir(), "media-jobs-soak-processor-"));
  const url = `http://127.0.0.1:${port}`;
  const attempts: ProcessorAttempt[] = [];
  let child: ChildProcess | undefined;

  const start = async () => {
    // detached: its own process group, so kill() reaches the tools it runs as well.
    child = spawn(process.execPath, [join(root, "container/src/server.ts")], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), PROCESSOR_TOKEN: token, ALLOW_PRIVATE_NETWORK_INPUTS: "true", WORK_DIR: workDir, LOG_LEVEL: "info" },
    });
    let pending = "";
    child.stdout!.on("data", (data: Buffer) => {
      const lines = (pending + data.toString()).split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { message?: string; job?: string; state?: string; ms?: number };
          if (entry.message === "job finished" && entry.job) attempts.push({ pid: entry.job, state: entry.state ?? "?", ms: entry.ms ?? 0 });
        } catch {
          // Not a log line.
        }
      }
    });
    await until(async () => ((await status()) === undefined ? undefined : true), 100, 20_000, "the processor to listen");
  };

  const status = async (): Promise<number | undefined> => {
    try {
      // The processor gates /status on its PROCESSOR_TOKEN (container/src/app.ts).
      const response = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2_000) });
      if (!response.ok) return undefined;
      return ((await response.json()) as { running: number }).running;
    } catch {
      return undefined;
    }
  };

  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((done) => current.once("exit", () => done()));
    try {
      process.kill(-current.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
  };

  await start();
  return {
    url,
    token,
    attempts,
    kill,
    start,
    running: status,
    // Job directories only: `.ready` holds the ready processes' frames (container/src/tools/ready-tools.ts).
    leftovers: async () => (await readdir(workDir).catch(() => [])).filter((name) => !name.startsWith(".")),
    stop: async () => {
      await kill();
      await sleep(50);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

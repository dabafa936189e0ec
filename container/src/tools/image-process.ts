// sharp as the processor calls it, run in the image tool (tools/image-worker.ts): a process
// under the current attempt's uid and rlimits (isolation.ts), started once per attempt and
// ended with its uid; outside an isolated attempt, one process of the processor's own.
// libvips never parses a user's file inside the processor.
//
// `sharp(input, options)` here records the chain (`.resize(…).png(…)`) and sends it whole
// when it ends in `toFile`, `toBuffer`, `metadata` or `stats`. Arguments cross as
// structured clones: plain options and Buffers, never another pipeline (await its
// `toBuffer()` first). A path the tool writes is its own file, under its uid.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { Sharp, SharpInput, SharpOptions } from "sharp";
import { JobFailure } from "../errors.ts";
import { currentIdentity, type ToolIdentities, type ToolIdentity, type ToolLease } from "../isolation.ts";
import { log } from "../log.ts";
import { limitMessage, limitThatEnded, toolCommand, toolEnv } from "./spawn.ts";

const WORKER = fileURLToPath(new URL("./image-worker.ts", import.meta.url));

/** The files the image tool runs from, under an attempt's uid: each must be reachable by it (isolation.ts `decideIsolation`). */
export const IMAGE_TOOL_PROGRAMS: Record<string, string> = {
  "the image tool's Node": process.execPath,
  "the image tool's script": WORKER,
  sharp: createRequire(import.meta.url).resolve("sharp"),
};
const ENDS = new Set(["toFile", "toBuffer", "metadata", "stats"]);

/** An answer to request `id`; or, without one, the tool saying its warm-up is done. */
interface Reply {
  id?: number;
  value?: unknown;
  error?: string;
  warmed?: true;
}

/** One running image tool: requests in flight, answered in any order. */
export class ImageProcess {
  readonly #child: ChildProcess;
  readonly #identity?: ToolIdentity;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  #next = 0;
  #stderr = "";
  #stopped = false;
  #warmed: boolean;
  /** Why it ended, once it has: every request after that fails with it. */
  #ended?: Error;

  /** `warm`: the tool loads its codecs before its first request (a ready tool, which has time to). */
  constructor(identity: ToolIdentity | undefined, { warm = false } = {}) {
    this.#identity = identity;
    this.#warmed = !warm;
    const [file, argv] = toolCommand(process.execPath, warm ? [WORKER, "--warm"] : [WORKER], identity);
    this.#child = spawn(file, argv, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      detached: true,
      env: toolEnv(identity),
    });
    this.#child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-4000)));
    this.#child.on("message", (reply: Reply) => this.#settle(reply));
    this.#child.on("error", (error) => this.#end(error));
    this.#child.on("exit", (code, signal) => this.#end(this.#failure(code, signal)));
    this.#idle();
  }

  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** Runs one recorded chain in the tool. */
  run(input: unknown[], calls: [string, unknown[]][], end: [string, unknown[]]): Promise<unknown> {
    if (this.#ended) return Promise.reject(this.#ended);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Held by the event loop only while it works for someone (an idle tool never keeps the processor up).
      this.#child.ref();
      (this.#child.channel as { ref?(): void } | undefined)?.ref?.();
      (this.#child.stderr as Socket | null)?.ref();
      try {
        this.#child.send({ id, input, calls, end });
      } catch (error) {
        // The tool is gone (it ended, or never started): its exit, on its way, says why (#failure).
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EPIPE" || code === "ERR_IPC_CHANNEL_CLOSED") return;
        // Not cloneable (a function, a pipeline): the caller's mistake, said at once.
        this.#pending.delete(id);
        this.#idle();
        reject(error);
      }
    });
  }

  /** Ends the tool (its requests fail); a lease's reclaim ends it anyway. */
  stop(): void {
    this.#stopped = true;
    try {
      if (this.#child.pid) process.kill(-this.#child.pid, "SIGKILL");
    } catch {
      this.#child.kill("SIGKILL");
    }
  }

  /** Whether it has loaded its codecs (a ready tool, `warm`), or needs no warm-up. */
  get warmed(): boolean {
    return this.#warmed;
  }

  #settle(reply: Reply): void {
    if (reply.warmed) return void (this.#warmed = true);
    if (reply.id === undefined) return;
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#idle();
    if (reply.error !== undefined) pending.reject(new Error(reply.error));
    else pending.resolve(reply.value);
  }

  #idle(): void {
    this.#child.unref();
    (this.#child.channel as { unref?(): void } | undefined)?.unref?.();
    // Its stderr pipe too: else an idle tool kept a finished process (the bench) from exiting.
    (this.#child.stderr as Socket | null)?.unref();
  }

  #end(error: Error): void {
    this.#ended ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#ended);
    this.#pending.clear();
  }

  /** Why the tool ended: a limit of its uid's, a crash (libvips on a hostile or broken file), or a stop. */
  #failure(code: number | null, signal: NodeJS.Signals | null): Error {
    const cause = new Error(`the image tool ended (${signal ?? `exit ${code}`}): ${this.#stderr.trim().slice(-1000)}`);
    const limit = this.#identity && limitThatEnded({ signal, timedOut: false, aborted: this.#stopped });
    if (limit) return new JobFailure("resource_limit_exceeded", limitMessage("sharp", limit, this.#identity!), { cause });
    if (this.#stopped) return new JobFailure("processing_failed", "the image tool was stopped", { cause });
    if (signal === "SIGSEGV" || signal === "SIGBUS" || signal === "SIGABRT" || signal === "SIGFPE" || signal === "SIGILL") {
      return new JobFailure("corrupt_media", "the image decoder crashed on this file: it is damaged, or built to break decoders", { cause });
    }
    // 126 and 127: setpriv, prlimit or Node could not run it (a file its uid cannot reach); the processor's fault, not the input's.
    if (code === 126 || code === 127) return new JobFailure("processing_failed", `the image tool could not start: ${this.#stderr.trim().slice(-300)}`, { cause });
    return cause;
  }
}

/** Each isolated attempt's tool, by its identity; the one for everything outside an attempt. */
const processes = new WeakMap<ToolIdentity, ImageProcess>();
let unisolated: ImageProcess | undefined;

/** The current attempt's image tool, started now if it has none yet (or its last one ended). */
export function imageProcess(identity = currentIdentity()): ImageProcess {
  const running = identity ? processes.get(identity) : unisolated;
  if (running && !running.ended) return running;
  const started = new ImageProcess(identity);
  if (identity) processes.set(identity, started);
  else unisolated = started;
  return started;
}

/**
 * Image tools started before their attempt: each under a uid it holds, in a directory of that
 * uid's. An attempt that takes one adopts its lease as its own (jobs.ts): the tool is then
 * simply one of the attempt's, started early, and its start (a Node process loading libvips,
 * ~80 ms, and libvips's first encodes) is off the job's path. Isolated processors only: without
 * isolation the one shared tool stays started.
 */
class ReadyImageTools {
  readonly #count: number;
  readonly #dir: string;
  readonly #identities: ToolIdentities;
  readonly #waiting: { lease: ToolLease; process: ImageProcess }[] = [];
  #working = true;

  constructor(count: number, dir: string, identities: ToolIdentities) {
    this.#count = count;
    this.#dir = dir;
    this.#identities = identities;
    for (let i = 0; i < count; i++) void this.#add();
  }

  /** A waiting tool with the lease it runs under, or undefined; another starts a moment later. */
  take(): { lease: ToolLease; process: ImageProcess } | undefined {
    for (let ready = this.#waiting.shift(); ready; ready = this.#waiting.shift()) {
      setTimeout(() => void this.#add(), REFILL_DELAY_MS).unref();
      if (!ready.process.ended) return ready;
      void ready.lease.release();
    }
    return undefined;
  }

  /** How many wait with their warm-up done: started, they still spend a few hundred ms of CPU before they are. */
  get waiting(): number {
    return this.#waiting.filter(({ process }) => process.warmed && !process.ended).length;
  }

  stop(): void {
    this.#working = false;
    for (const { lease } of this.#waiting.splice(0)) void lease.release();
  }

  async #add(): Promise<void> {
    if (!this.#working || this.#waiting.length >= this.#count) return;
    // None free now: the attempts need them more; the next take tries again.
    const lease = await this.#identities.tryAcquire();
    if (!lease) return;
    try {
      await lease.prepare(join(this.#dir, `i${lease.identity.uid}-${randomBytes(6).toString("hex")}`));
    } catch (error) {
      log("warn", "a ready image tool could not be prepared", { error: String(error) });
      return void (await lease.release());
    }
    if (!this.#working) return void (await lease.release());
    const process = new ImageProcess(lease.identity, { warm: true });
    processes.set(lease.identity, process);
    this.#waiting.push({ lease, process });
  }
}

/** A taken tool is replaced this long after, not at once: its start would compete with the job that took it (as ready-tools.ts). */
const REFILL_DELAY_MS = 250;

let ready: ReadyImageTools | undefined;

/** Starts `count` ready image tools (config READY_PROCESSES), under `dir`; none without isolation. */
export async function startReadyImageTools(count: number, dir: string, identities: ToolIdentities | undefined): Promise<void> {
  if (ready || count <= 0 || !identities) return;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // Each tool's directory is in here: they pass through, and list nothing.
  await chmod(dir, 0o711);
  ready = new ReadyImageTools(count, dir, identities);
}

/** Ends the waiting tools (a drain, a stop); a taken one ends with its attempt. */
export function stopReadyImageTools(): void {
  ready?.stop();
  ready = undefined;
}

/** How many ready image tools wait, warmed up (0 when none were started). */
export function readyImageToolsWaiting(): number {
  return ready?.waiting ?? 0;
}

/** A ready image tool and the lease it runs under, for an attempt to adopt; undefined when none waits. */
export function takeReadyImageTool(): { lease: ToolLease; process: ImageProcess } | undefined {
  return ready?.take();
}

type SharpFactory = {
  (options?: SharpOptions): Sharp;
  (input?: SharpInput | SharpInput[], options?: SharpOptions): Sharp;
};

/**
 * sharp's API, run in the current attempt's image tool. The chain is recorded in order, as
 * sharp's own methods mutate and return the same pipeline; its end sends it.
 */
export const sharp: SharpFactory = (...input: unknown[]) => {
  const calls: [string, unknown[]][] = [];
  const pipeline: Sharp = new Proxy({} as Sharp, {
    get(_target, name) {
      // Not a thenable: `await pipeline` would be a mistake, not a request.
      if (typeof name !== "string" || name === "then") return undefined;
      if (!ENDS.has(name)) {
        return (...args: unknown[]) => {
          calls.push([name, args]);
          return pipeline;
        };
      }
      return async (...args: unknown[]) => {
        // A file the tool writes is made by it, under its uid: whatever a tool left at that
        // name (a link it planted) is removed first, in the attempt's sticky directory.
        if (name === "toFile") await unlink(args[0] as string).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
        return imageProcess().run(input, calls, [name, args]);
      };
    },
  });
  return pipeline;
};

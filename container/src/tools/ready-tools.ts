// ffprobe and ffmpeg processes started before a job needs them. Every start of Debian's
// ffmpeg or ffprobe spends 40–50 ms of CPU loading its ~215 shared libraries before it
// reads a byte, and on a short job two such starts (the probe and the tool, side by side
// on a two-core machine) are most of what the job adds to its tool (docs/architecture.md,
// "What the processor runs"). A ready process has loaded and waits:
// - a ready probe has asked the tool relay (tool-relay.ts) for its input, at a route of its
//   own, and waits for the answer;
// - a ready grab (ffmpeg writing one frame's raw pixels, or its JPEG at the quality the last
//   job asked for) waits for its input, a graph naming the same kind of URL, on its fd 3
//   (tools/frames.ts readyGrabSource), which a job sends as it starts, so the grab opens the
//   input and seeks beside the probe; then for the frame's filters on stdin and fd 4, once the
//   probe has answered (readyGrabGraph).
// A job takes one: its input (input-source.ts InputSource.answer) answers that route from
// then on, as it answers its own, and the process reads as if it had just started.
//
// Always: a route answers nothing before a job has taken its process, then that job's input
// only, until the process ends. A ready process runs under the same whitelists as one
// started by its job. A ready process dies with the processor (spawn.ts), and
// `stopReadyTools` kills those no job took (a drain). With isolation (isolation.ts) each runs
// under a uid of its own, whose relay secret alone its route answers, writing only in a
// directory of its own; the uid is reclaimed when it ends.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rm } from "node:fs/promises";
import type http from "node:http";
import { join } from "node:path";
import type { ToolIdentities, ToolLease } from "../isolation.ts";
import { log } from "../log.ts";
import { step } from "../steps.ts";
import { ToolRelay, type InputAnswer } from "../tool-relay.ts";
import { runTool, toolEnv, type RunResult } from "./spawn.ts";

/** How long a ready process may wait for a job (a day: waiting costs only its memory); then it is replaced. */
const READY_WAIT_MS = 24 * 3600_000;

/**
 * A taken process is replaced once no job runs on the processor (`busy`), checked every
 * REFILL_DELAY_MS from its end, and at the latest MAX_REFILL_DELAY_MS after it: a start
 * (40–50 ms of ffprobe's or ffmpeg's CPU, and the processor's fork) would otherwise compete
 * with the work of the job that just took it, which goes on after its probe (a thumbnail's
 * grab of a 1080p frame: 300 ms and more).
 */
const REFILL_DELAY_MS = 250;
const MAX_REFILL_DELAY_MS = 2_000;

/**
 * A taken process's directory (its frame, which its job reads and removes) is removed this
 * long after the process ended: its job has read the frame by then.
 */
const TAKEN_DIR_LIFE_MS = 60_000;

/** A waiting process that ends sooner than this after its start is started again only after a delay, doubling from 1 s up to MAX_RETRY_DELAY_MS. */
const MIN_READY_LIFE_MS = 5_000;
const MAX_RETRY_DELAY_MS = 60_000;

export interface ReadyTool {
  /** The input URL this process reads: answered by the taking job's input. */
  readonly url: string;
  /** Where a ready grab writes its frame's raw pixels (removed by its job). */
  readonly output: string;
  /**
   * A ready grab's other output: the frame's JPEG at `quality` (fixed at its start: the
   * quality the last job that wanted one asked for, setReadyJpegQuality), written to `output`.
   */
  readonly jpeg?: { output: string; quality: number };
  /**
   * Runs the process for a job: `answer` answers its input's requests from now on, `stdin`
   * is written to it (a grab's raw output's filter; a probe reads none), `jpegGraph` to a
   * grab's fd 4 (its JPEG output's filter), and it has `timeoutMs` from now, ended at once
   * when `signal` aborts. A step of the current job, named after the tool.
   */
  take(answer: InputAnswer, stdin: string, options: { signal: AbortSignal; timeoutMs: number; jpegGraph?: string }): Promise<RunResult>;
  /**
   * A ready grab's first part, before `take`: `answer` answers its input's requests from now
   * on, and `input` (its input graph) goes to its fd 3, so it opens the input while the job
   * still decides what to take it for. A process opened is the job's: `release` kills it.
   */
  open(answer: InputAnswer, input: string): void;
  /** Gives a process back untaken (the job found no use for it); one opened is killed instead. */
  release(): void;
  /** False once the process has ended: a job holding it (not yet taken) starts its own instead. */
  readonly alive: boolean;
}

interface Kind {
  command: "ffprobe" | "ffmpeg";
  /** It reads an input graph on fd 3 (ReadyTool.open) before stdin. */
  opens?: true;
  /** It also writes a JPEG (ReadyTool.jpeg), its filter read on fd 4; at this quality until a job asks for another. */
  jpegQuality?: number;
  /** The command line for a process reading `url` (and writing `output`, and `jpeg` when the kind writes one). */
  args(url: string, output: string, jpeg?: { output: string; quality: number }): string[];
}

/** A ready process's input: its route on the tool relay, answered by the job that takes it. */
interface Route {
  url: string;
  /** The taking job's input (InputSource.answer), once taken or opened. */
  answer?: InputAnswer;
  /** Requests that came before a job took the process: answered once one does. */
  held: [http.IncomingMessage, http.ServerResponse][];
  close(): void;
}

/** A route on the tool relay for one ready process: with `secret` (its uid's), only that process's requests are answered (tool-relay.ts). */
function readyRoute(relay: ToolRelay, secret: string | undefined): Route {
  const route: Omit<Route, "url" | "close"> = { held: [] };
  const relayed = relay.open("", secret, (req, res) => (route.answer ? route.answer(req, res) : route.held.push([req, res])));
  return Object.assign(route, {
    url: relayed.url,
    close: () => {
      relayed.close();
      for (const [, res] of route.held.splice(0)) res.destroy();
    },
  });
}

class ReadyPool {
  readonly #kind: Kind;
  readonly #count: number;
  readonly #relay: ToolRelay;
  readonly #dir: string;
  readonly #identities?: ToolIdentities;
  readonly #waiting: (ReadyTool & { kill(): void })[] = [];
  /** Processes being started (waiting for their uid and directory). */
  #starting = 0;
  #working = true;
  /** Waiting processes that ended at once, in a row: each is started again later than the last. */
  #failures = 0;
  /** Processes jobs have run, since the start. */
  taken = 0;
  /** The quality a grab started from now writes its JPEG at (Kind.jpegQuality). */
  jpegQuality: number | undefined;

  readonly #busy: () => boolean;

  constructor(kind: Kind, count: number, relay: ToolRelay, dir: string, identities: ToolIdentities | undefined, busy: () => boolean) {
    this.#busy = busy;
    this.#kind = kind;
    this.#count = count;
    this.#relay = relay;
    this.#dir = dir;
    this.#identities = identities;
    this.jpegQuality = kind.jpegQuality;
    for (let i = 0; i < count; i++) this.#add();
  }

  /** A waiting process, off the list until it is taken and ends (then another starts) or is released; undefined when none waits. */
  take(): ReadyTool | undefined {
    return this.#waiting.shift();
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  stop(): void {
    this.#working = false;
    for (const ready of this.#waiting.splice(0)) ready.kill();
  }

  #add(): void {
    if (!this.#working || this.#waiting.length + this.#starting >= this.#count) return;
    if (!this.#identities) return this.#spawn(undefined);
    this.#starting++;
    void this.#identities.tryAcquire().then(
      (lease) => {
        this.#starting--;
        if (lease && this.#working) return void this.#prepare(lease);
        void lease?.release();
        // Every uid is held (by attempts): a job starts its own process meanwhile.
        if (this.#working) setTimeout(() => this.#add(), MAX_RETRY_DELAY_MS / 10).unref();
      },
      (error: unknown) => {
        this.#starting--;
        log("warn", `a ready ${this.#kind.command} could not get a uid`, { error: String(error) });
      },
    );
  }

  /** Adds a process once no job runs, or MAX_REFILL_DELAY_MS after `since` (REFILL_DELAY_MS). */
  #refillWhenQuiet(since: number): void {
    setTimeout(() => (this.#busy() && Date.now() - since < MAX_REFILL_DELAY_MS ? this.#refillWhenQuiet(since) : this.#add()), REFILL_DELAY_MS).unref();
  }

  /** Makes the directory of a process under `lease`'s uid (isolation.ts ToolLease.prepare), then starts it. */
  async #prepare(lease: ToolLease): Promise<void> {
    const dir = join(this.#dir, `p${lease.identity.uid}-${randomBytes(6).toString("hex")}`);
    this.#starting++;
    try {
      await lease.prepare(dir);
    } catch (error) {
      await lease.release();
      log("warn", `a ready ${this.#kind.command} could not get its directory`, { error: String(error) });
      return;
    } finally {
      this.#starting--;
    }
    if (!this.#working || this.#waiting.length >= this.#count) {
      await lease.release();
      await rm(dir, { recursive: true, force: true });
      return;
    }
    this.#spawn(lease, dir);
  }

  /** Starts one process: under `lease`'s uid, writing in `dir`, when isolated. */
  #spawn(lease: ToolLease | undefined, dir = this.#dir): void {
    const route = readyRoute(this.#relay, lease?.identity.relaySecret);
    const { url } = route;
    const name = randomBytes(12).toString("hex");
    const output = lease ? join(dir, "frame.raw") : join(this.#dir, `${name}.raw`);
    const jpeg = this.jpegQuality === undefined ? undefined : { output: lease ? join(dir, "frame.jpg") : join(this.#dir, `${name}.jpg`), quality: this.jpegQuality };
    const kill = new AbortController();
    let send!: (input: { text: string; timeoutMs: number } | null) => void;
    let sendInput!: (input: string | null) => void;
    let sendJpegGraph!: (graph: string | null) => void;
    const startedAt = Date.now();
    let taken = false;
    let opened = false;
    let ended = false;
    // Spawned outside any job: its run is a step of the job that takes it (take), not of this context.
    const result = runTool(this.#kind.command, this.#kind.args(url, output, jpeg), {
      signal: kill.signal,
      timeoutMs: READY_WAIT_MS,
      // Writing stdin (and closing it) starts the job's own time limit (spawn.ts).
      stdin: new Promise((resolve) => (send = resolve)),
      ...(this.#kind.opens
        ? { fds: [new Promise<string | null>((resolve) => (sendInput = resolve)), ...(jpeg ? [new Promise<string | null>((resolve) => (sendJpegGraph = resolve))] : [])] }
        : {}),
      // Its uid's relay secret in `http_proxy` (toolEnv), which its input's reads go through.
      env: toolEnv(lease?.identity),
      identity: lease?.identity,
    });
    const ready: ReadyTool & { kill(): void } = {
      url,
      output,
      ...(jpeg ? { jpeg } : {}),
      get alive() {
        return !ended;
      },
      kill: () => kill.abort(),
      open: (answer, input) => {
        if (!this.#kind.opens) throw new Error(`a ready ${this.#kind.command} reads no input graph`);
        opened = true;
        route.answer = answer;
        for (const [req, res] of route.held.splice(0)) answer(req, res);
        sendInput(input);
      },
      take: (answer, stdin, { signal, timeoutMs, jpegGraph }) => {
        taken = true;
        this.taken++;
        this.#failures = 0;
        route.answer = answer;
        for (const [req, res] of route.held.splice(0)) answer(req, res);
        const onAbort = () => kill.abort();
        if (signal.aborted) onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        send({ text: stdin, timeoutMs });
        if (jpeg) sendJpegGraph(jpegGraph ?? null);
        return step(this.#kind.command, () => result).finally(() => signal.removeEventListener("abort", onAbort));
      },
      release: () => {
        if (opened && !taken) return kill.abort();
        if (taken || ended || this.#waiting.includes(ready)) return;
        if (this.#working && this.#waiting.length < this.#count) this.#waiting.push(ready);
        else kill.abort();
      },
    };
    this.#waiting.push(ready);
    // A start that fails (no such tool, no memory, no file handles) rejects: the same end as an exit.
    const onEnd = () => {
      ended = true;
      route.close();
      if (lease) {
        // Its uid is free again once nothing of it runs; its frame stays for the job that took it, a while.
        void lease.release().then(() => (taken ? void setTimeout(() => void rm(dir, { recursive: true, force: true }), TAKEN_DIR_LIFE_MS).unref() : rm(dir, { recursive: true, force: true })));
      }
      const index = this.#waiting.indexOf(ready);
      if (index >= 0) this.#waiting.splice(index, 1);
      if (!this.#working) return;
      // One a job took, or opened and then found no use for.
      if (taken || opened) return this.#refillWhenQuiet(Date.now());
      if (Date.now() - startedAt >= MIN_READY_LIFE_MS) return this.#add();
      // Ended while it waited, at once: its tool is missing or broken, or the machine is short of something. Tried again later and later.
      const delayMs = Math.min(MAX_RETRY_DELAY_MS, 1_000 * 2 ** this.#failures++);
      if (this.#failures === 1) log("warn", `a ready ${this.#kind.command} ended as it started; jobs start their own until one stays up`, { retryInMs: delayMs });
      setTimeout(() => this.#add(), delayMs).unref();
    };
    void result.then(onEnd, onEnd);
  }
}

let pools: { probes: ReadyPool; grabs: ReadyPool } | undefined;

/**
 * Starts `count` ready probes and `count` ready grabs for the processor (config
 * READY_PROCESSES; 0 starts none), their frames written under `dir`.
 */
export async function startReadyTools(
  count: number,
  dir: string,
  kinds: { probe: Kind["args"]; grab: Kind["args"]; grabJpegQuality: number },
  identities?: ToolIdentities,
  /** Whether a job runs on the processor now: a taken process is replaced once none does (REFILL_DELAY_MS). */
  busy: () => boolean = () => false,
): Promise<void> {
  if (pools || count <= 0) return;
  // Frames a crashed processor left are of no one's.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // Isolated: each process's own directory is in here; they pass through, and list nothing.
  if (identities) await chmod(dir, 0o711);
  const relay = await ToolRelay.shared();
  pools = {
    probes: new ReadyPool({ command: "ffprobe", args: kinds.probe }, count, relay, dir, identities, busy),
    grabs: new ReadyPool({ command: "ffmpeg", args: kinds.grab, opens: true, jpegQuality: kinds.grabJpegQuality }, count, relay, dir, identities, busy),
  };
}

/**
 * Kills the ready processes no job took (a drain, a bench's end); one a job took ends with its
 * job, and its route with it. One set per Node process: processors started in one process
 * (tests) share it, and the first to stop stops it.
 */
export function stopReadyTools(): void {
  pools?.probes.stop();
  pools?.grabs.stop();
  pools = undefined;
}

/** A ready probe, or undefined (none started, or none waiting). */
export function takeReadyProbe(): ReadyTool | undefined {
  return pools?.probes.take();
}

/** A ready grab, or undefined (none started, or none waiting). */
export function takeReadyGrab(): ReadyTool | undefined {
  return pools?.grabs.take();
}

/**
 * The quality ready grabs started from now on write their JPEG at: the one a job that wanted
 * ffmpeg's JPEG asked for (ffmpeg fixes it at its start, before any job). Those waiting keep
 * theirs, and still serve a job at another quality with their raw pixels.
 */
export function setReadyJpegQuality(quality: number): void {
  if (pools) pools.grabs.jpegQuality = quality;
}

/** How many of each wait for a job, and how many jobs have run since the start (`taken`). */
export function readyCounts(): { probes: number; grabs: number; taken: { probes: number; grabs: number } } {
  return {
    probes: pools?.probes.waiting ?? 0,
    grabs: pools?.grabs.waiting ?? 0,
    taken: { probes: pools?.probes.taken ?? 0, grabs: pools?.grabs.taken ?? 0 },
  };
}

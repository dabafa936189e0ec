// Runs an external tool (ffmpeg, ffprobe, gs, heif-convert, qpdf) with a time limit,
// killed at once on abort. Always: the child is killed and awaited before this returns,
// whatever happened; it dies with the processor (`setpriv --pdeathsig SIGKILL`, util-linux;
// prctl(2) PR_SET_PDEATHSIG), and gets a minimal environment. In an isolated attempt
// (isolation.ts) it runs under the attempt's uid, without groups, under its rlimits (prlimit),
// and a run a limit ended fails the job `resource_limit_exceeded`.
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import type { Writable } from "node:stream";
import { JobFailure, stopped, type JobCancelled } from "../errors.ts";
import { currentIdentity, identityArgs, limitArgs, type ToolIdentity } from "../isolation.ts";
import { step } from "../steps.ts";
import { ToolRelay } from "../tool-relay.ts";

/** Whether this machine has setpriv with --pdeathsig (Linux); elsewhere tools run directly. */
const SETPRIV = process.platform === "linux" && spawnSync("setpriv", ["--pdeathsig", "SIGKILL", "--", "true"], { stdio: "ignore" }).status === 0;

/**
 * The command line that runs `command` so that it dies with this process; with `identity`,
 * as its uid and gid, no supplementary groups, under its limits (`cpuS` instead of its CPU
 * limit, for an encode). The two wrappers exec in turn in the one process the processor
 * started: their cost is two execs, no fork.
 */
export function toolCommand(command: string, args: string[], identity?: ToolIdentity, cpuS?: number): [string, string[]] {
  if (identity) return ["setpriv", [...identityArgs(identity.uid, identity.gid), "--", "prlimit", ...limitArgs(identity.limits, cpuS), "--", command, ...args]];
  return SETPRIV ? ["setpriv", ["--pdeathsig", "SIGKILL", "--", command, ...args]] : [command, args];
}

/**
 * A tool's environment: PATH, the C locale, and HOME and the temp variables in the identity's
 * own directory; for an isolated tool, `http_proxy` naming the tool relay with its uid's
 * secret (tool-relay.ts), which ffmpeg's http sends its input's requests through. Nothing of
 * the processor's (PROCESSOR_TOKEN, its own proxy) reaches it.
 */
export function toolEnv(identity?: Pick<ToolIdentity, "home" | "relaySecret">): NodeJS.ProcessEnv {
  const home = identity?.home || tmpdir();
  const proxy = identity?.relaySecret === undefined ? undefined : ToolRelay.proxyFor(identity.relaySecret);
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C", HOME: home, TMPDIR: home, TEMP: home, TMP: home, ...(proxy ? { http_proxy: proxy } : {}) };
}

/** How long a tool's pipes may stay open after it exited (a descendant holding them). */
const PIPE_DRAIN_MS = 1_000;

export interface RunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Called with each chunk of stdout as it arrives (for progress parsing). */
  onStdout?: (chunk: string) => void;
  /** Called with each chunk of stdout as bytes, for a tool that writes its data there; stdout is then neither decoded, nor kept, nor given to onStdout. */
  onStdoutBytes?: (chunk: Buffer) => void;
  /** Largest stdout/stderr kept in memory, in bytes. */
  maxBuffer?: number;
  /**
   * What to write to the tool's stdin, once known (then stdin is closed); the time limit
   * then starts again at `timeoutMs` from that moment. `null` (or a rejection) kills the
   * tool instead, and the run resolves as aborted. Without it, stdin is /dev/null.
   */
  stdin?: Promise<{ text: string; timeoutMs: number } | null>;
  /**
   * What to write to the tool's file descriptors 3, 4, … once known (then each is closed;
   * `null` closes it unwritten): inputs read beside stdin (a ready grab's input graph on 3,
   * its JPEG output's filter on 4: tools/frames.ts readyGrabArgs).
   */
  fds?: Promise<string | null>[];
  /** The tool's environment, when not toolEnv's. */
  env?: NodeJS.ProcessEnv;
  /** Who the tool runs as, when not the current attempt's identity (isolation.ts; a ready process has its own). */
  identity?: ToolIdentity;
  /** CPU seconds the run may use, when more than the identity's limit (an encode: tools/ffmpeg.ts). */
  cpuS?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Runs `command` to its end; the run is a step of the current job, named after the command.
 * Rejects with `resource_limit_exceeded` when one of its limits ended it.
 */
export function runTool(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const identity = options.identity ?? currentIdentity();
  return step(command, async () => {
    const result = await run(command, args, { ...options, identity });
    const limit = identity && limitThatEnded(result);
    if (limit) throw new JobFailure("resource_limit_exceeded", limitMessage(command, limit, identity, options.cpuS), { cause: new Error(result.stderr.slice(-2000)) });
    return result;
  });
}

/**
 * What ended a run before the tool did, as the job reports it: the job's `signal` (stopped()
 * in errors.ts decides between its time limit and a cancel), or the run's own time limit
 * (`overLimit` says which, as processing_timeout); undefined when the tool ended by itself.
 */
export function endedEarly(run: Pick<RunResult, "aborted" | "timedOut">, signal: AbortSignal, overLimit: string): JobFailure | JobCancelled | undefined {
  if (run.aborted) return stopped(signal);
  if (run.timedOut) return new JobFailure("processing_timeout", overLimit);
  return undefined;
}

type Limit = "cpu" | "file size";

/**
 * Which limit ended a run: SIGXFSZ (a write past RLIMIT_FSIZE), SIGXCPU, or a SIGKILL the
 * processor did not send (RLIMIT_CPU's hard limit, which prlimit makes the only one; the
 * kernel's OOM killer ends a process the same way).
 */
export function limitThatEnded(result: Pick<RunResult, "signal" | "timedOut" | "aborted">): Limit | undefined {
  if (result.signal === "SIGXFSZ") return "file size";
  if (result.signal === "SIGXCPU") return "cpu";
  if (result.signal === "SIGKILL" && !result.timedOut && !result.aborted) return "cpu";
  return undefined;
}

export function limitMessage(command: string, limit: Limit, identity: ToolIdentity, cpuS = identity.limits.cpuS): string {
  const tool = command.split("/").pop();
  if (limit === "file size") return `${tool} was stopped: it wrote a file larger than the processor allows (${Math.round(identity.limits.fileBytes / 1024 ** 2)} MiB); ask for a smaller output`;
  return `${tool} was stopped: it used more than its ${cpuS} s of CPU time (or more memory than the machine has); the input may be built to make it work without end, or it needs a smaller size or lower quality`;
}

function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const maxBuffer = options.maxBuffer ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    // detached: the child leads its own process group, so kill(-pid) also ends anything it spawned.
    const [file, argv] = toolCommand(command, args, options.identity, options.cpuS);
    const env = options.env ?? toolEnv(options.identity);
    const child = spawn(file, argv, { stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(options.fds ?? []).map(() => "pipe" as const)], detached: true, env });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const onTimeout = () => {
      timedOut = true;
      kill();
    };
    let timer = setTimeout(onTimeout, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (options.signal.aborted) onAbort();
    options.signal.addEventListener("abort", onAbort, { once: true });
    let exited = false;
    if (child.stdin) {
      // A tool that died before reading its stdin closes the pipe: nothing to report here, its exit says why.
      child.stdin.on("error", () => {});
      options.stdin!.then(
        (input) => {
          if (exited) return;
          if (input === null) return onAbort();
          clearTimeout(timer);
          timer = setTimeout(onTimeout, input.timeoutMs);
          child.stdin!.end(input.text);
        },
        () => {
          if (!exited) onAbort();
        },
      );
    }

    for (const [i, text] of (options.fds ?? []).entries()) {
      const fd = child.stdio[3 + i] as Writable;
      fd.on("error", () => {});
      void text.then(
        (value) => (value === null ? fd.destroy() : fd.end(value)),
        () => fd.destroy(),
      );
    }

    if (options.onStdoutBytes) child.stdout!.on("data", options.onStdoutBytes);
    else {
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        options.onStdout?.(chunk);
        if (stdout.length < maxBuffer) stdout += chunk;
      });
    }
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep the tail: the last lines of a tool's stderr say why it failed.
      stderr = (stderr + chunk).slice(-maxBuffer);
    });
    // A descendant the tool left (one that left its process group too) may hold its stdout or
    // stderr open: once the tool itself has exited, its pipes get a moment to drain, then are
    // closed, so the run ends (an isolated attempt's leftovers are killed when its uid is reclaimed).
    child.on("exit", () => setTimeout(() => (child.stdout!.destroy(), child.stderr!.destroy()), PIPE_DRAIN_MS).unref());
    child.on("error", (error) => {
      exited = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code, signal) => {
      exited = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      // The wrappers (setpriv, prlimit) exec the tool: a missing one is their exit 127, reported as spawn reports it.
      if (file !== command && code === 127 && /failed to execute/.test(stderr)) return reject(Object.assign(new Error(`${command}: not found`), { code: "ENOENT" }));
      resolve({ code, signal, stdout, stderr, timedOut, aborted });
    });
  });
}

// Runs an external tool (ffmpeg, ffprobe, gs, heif-convert, qpdf) with a time limit,
// killed at once on abort. Always: the child is killed and awaited before this returns,
// whatever happened. And if the processor itself dies (a crash, an OOM kill, kill -9),
// the kernel kills the tool too: it runs under `setpriv --pdeathsig SIGKILL`
// (util-linux; prctl(2) PR_SET_PDEATHSIG), so no tool outlives the work that started it.
import { spawn, spawnSync } from "node:child_process";
import { step } from "../steps.ts";

/** Whether this machine has setpriv with --pdeathsig (Linux); elsewhere tools run directly. */
const SETPRIV = process.platform === "linux" && spawnSync("setpriv", ["--pdeathsig", "SIGKILL", "--", "true"], { stdio: "ignore" }).status === 0;

/** The command line that runs `command` so that it dies with this process. */
export function dyingWithParent(command: string, args: string[]): [string, string[]] {
  return SETPRIV ? ["setpriv", ["--pdeathsig", "SIGKILL", "--", command, ...args]] : [command, args];
}

export interface RunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Called with each chunk of stdout as it arrives (for progress parsing). */
  onStdout?: (chunk: string) => void;
  /** Largest stdout/stderr kept in memory, in bytes. */
  maxBuffer?: number;
  /**
   * What to write to the tool's stdin, once known (then stdin is closed); the time limit
   * then starts again at `timeoutMs` from that moment. `null` (or a rejection) kills the
   * tool instead, and the run resolves as aborted. Without it, stdin is /dev/null.
   */
  stdin?: Promise<{ text: string; timeoutMs: number } | null>;
  /** The tool's environment, when not this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs `command` to its end; the run is a step of the current job, named after the command. */
export function runTool(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return step(command, () => run(command, args, options));
}

function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const maxBuffer = options.maxBuffer ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    // detached: the child leads its own process group, so kill(-pid) also ends anything it spawned.
    const [file, argv] = dyingWithParent(command, args);
    const child = spawn(file, argv, { stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"], detached: true, env: options.env });
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

    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      options.onStdout?.(chunk);
      if (stdout.length < maxBuffer) stdout += chunk;
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep the tail: the last lines of a tool's stderr say why it failed.
      stderr = (stderr + chunk).slice(-maxBuffer);
    });
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
      resolve({ code, signal, stdout, stderr, timedOut, aborted });
    });
  });
}

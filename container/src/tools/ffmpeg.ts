// Runs ffmpeg on local files with a time limit, reporting progress from `-progress`.
// Always: the process group is killed at once on cancel or when the limit passes
// (runTool), and a failure is reported in public words, with ffmpeg's own log as cause.
import type { Config } from "../config.ts";
import { JobFailure } from "../errors.ts";
import type { InputAnswer } from "../tool-relay.ts";
import type { ReadyTool } from "./ready-tools.ts";
import { availableParallelism } from "node:os";
import { currentIdentity } from "../isolation.ts";
import { endedEarly, runTool, type RunResult } from "./spawn.ts";

/** Options before any input: no terminal, progress as key=value lines on stdout, overwrite. */
export function globalOptions(logLevel: "error" | "info" = "error"): string[] {
  return ["-nostdin", "-hide_banner", "-nostats", "-loglevel", logLevel, "-progress", "pipe:1", "-y"];
}

export interface FfmpegOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Seconds of media this run writes; with onProgress, turns out_time into a fraction. */
  durationS?: number;
  /** Fraction done, 0–1, never decreasing. */
  onProgress?: (fraction: number) => void;
  /** What the run does, for messages: "encoding the video". */
  task: string;
  /** ffmpeg's log level; `info` for a filter that reports on stderr (loudnorm's measurement). */
  logLevel?: "error" | "info";
}

/** ffmpeg's time limit for an input: generous (60 s + 20× its length), never past the job's. */
export function ffmpegTimeoutMs(durationS: number, config: Pick<Config, "JOB_TIMEOUT_MS">): number {
  return Math.min(config.JOB_TIMEOUT_MS, Math.ceil(60_000 + 20_000 * durationS));
}

/**
 * The CPU seconds (RLIMIT_CPU) an ffmpeg run may use: its wall-time limit on every core, so
 * the limit never ends a run its own time limit lets go on; at least the tools' TOOL_MAX_CPU_S.
 */
export function encodeCpuSeconds(timeoutMs: number): number | undefined {
  const identity = currentIdentity();
  return identity && Math.max(identity.limits.cpuS, Math.ceil((timeoutMs / 1000) * availableParallelism()));
}

export async function runFfmpeg(args: string[], options: FfmpegOptions): Promise<RunResult> {
  const onStdout = options.onProgress && options.durationS ? progressParser(options.durationS, options.onProgress) : undefined;
  return checked(runTool("ffmpeg", [...globalOptions(options.logLevel), ...args], { signal: options.signal, timeoutMs: options.timeoutMs, onStdout, cpuS: encodeCpuSeconds(options.timeoutMs) }), options);
}

/**
 * Runs ffmpeg writing its output to stdout (`pipe:1`), handed to `onData` as it comes, so a
 * long decode is read as a stream, never held whole; no `-progress` then (the caller counts
 * what it has read). The outcome in public words, as runFfmpeg's.
 */
export async function runFfmpegPipe(args: string[], options: Omit<FfmpegOptions, "durationS" | "onProgress">, onData: (chunk: Buffer) => void): Promise<RunResult> {
  const global = ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "error", "-y"];
  return checked(runTool("ffmpeg", [...global, ...args], { signal: options.signal, timeoutMs: options.timeoutMs, onStdoutBytes: onData, cpuS: encodeCpuSeconds(options.timeoutMs) }), options);
}

/** A run's outcome in public words: cancelled, over its limit, or failed (ffmpeg's log as cause). */
async function checked(running: Promise<RunResult>, options: Pick<FfmpegOptions, "signal" | "timeoutMs" | "task">): Promise<RunResult> {
  let run: RunResult;
  try {
    run = await running;
  } catch (error) {
    // A limit that ended it (tools/spawn.ts) says so; else it could not start.
    if (error instanceof JobFailure) throw error;
    throw new JobFailure("processing_failed", "ffmpeg is not available on this processor", { cause: error });
  }
  const early = endedEarly(run, options.signal, `${options.task} took longer than its limit of ${describeDuration(options.timeoutMs / 1000)}`);
  if (early) throw early;
  if (run.code !== 0) throw ffmpegFailure(options.task, run.stderr);
  return run;
}

/**
 * An ffmpeg run started before the input's probe has answered. Every ffmpeg-family process
 * spends about 0.1 s loading Debian's ~215 shared libraries before it reads anything (66 %
 * of `ffprobe -version` is ld.so's symbol lookup, by perf); started beside ffprobe, ffmpeg
 * loads on the other core while ffprobe reads the input, so a short job waits for one
 * start instead of two (docs/job-types.md, "What the processor runs").
 *
 * `args` hold what does not depend on the probe (input, seek, output and encoder options);
 * what does (which stream, the channel mix, the frame's size and time) is the filter graph,
 * read from stdin by `-filter_complex_script pipe:0`. ffmpeg reads that script while it
 * parses its options, before it opens any input, so until `run` sends the graph the
 * process has loaded and waits, and has not opened the input: an input the probe refuses
 * is never read by ffmpeg, as when the two ran in turn. The graph names its output `[out]`
 * (`args` map it with `-map [out]`); its input streams by index, `[0:1]`, from the probe.
 * (ffmpeg 7.0 deprecated `-filter_complex_script` for the equivalent `-/filter_complex`,
 * which Debian bookworm's ffmpeg 5.1, the one the Dockerfile installs, does not parse.)
 *
 * With `graph: "output"`, `args` read the graph themselves as an output stream's filter
 * (`-map 0:V:0 -filter_script:v pipe:0`, tools/frames.ts earlyGrabArgs): ffmpeg reads an
 * output's options after it has opened its inputs, so it opens the input (its header and
 * index, what the probe reads, under the same whitelists) beside the probe and waits for
 * the graph with the input open, decoding nothing more until it comes.
 */
export class EarlyFfmpeg {
  readonly #running: Promise<RunResult>;
  #send!: (input: { text: string; timeoutMs: number } | null) => void;
  #onStdout?: (chunk: string) => void;

  /** Starts ffmpeg now; `waitLimitMs` bounds its wait for the graph (run sets the run's own limit). */
  constructor(args: string[], options: { signal: AbortSignal; waitLimitMs: number; graph?: "complex" | "output" }) {
    const stdin = new Promise<{ text: string; timeoutMs: number } | null>((resolve) => (this.#send = resolve));
    const script = options.graph === "output" ? [] : ["-filter_complex_script", "pipe:0"];
    this.#running = runTool("ffmpeg", [...globalOptions(), ...script, ...args], {
      signal: options.signal,
      timeoutMs: options.waitLimitMs,
      stdin,
      onStdout: (chunk) => this.#onStdout?.(chunk),
      // Its run's limit is not known yet: the job's, as for its wait.
      cpuS: encodeCpuSeconds(options.waitLimitMs),
    });
    // Handled by `run` or `discard`, later: a failure to start must not count as unhandled meanwhile.
    this.#running.catch(() => undefined);
  }

  /** Sends the graph and waits for the run's end, as runFfmpeg does; its limit counts from now. */
  run(graph: string, options: FfmpegOptions): Promise<RunResult> {
    if (options.onProgress && options.durationS) this.#onStdout = progressParser(options.durationS, options.onProgress);
    this.#send({ text: graph, timeoutMs: options.timeoutMs });
    return checked(this.#running, options);
  }

  /** Kills the process if `run` was not called (the probe refused the input, or the job ended); resolves once it has exited. */
  async discard(): Promise<void> {
    this.#send(null);
    await this.#running.catch(() => undefined);
  }
}

/** Runs a ready grab (tools/ready-tools.ts) for the job: `answer` serves its input, `graph` goes to its two outputs (tools/frames.ts readyGrabGraph); the outcome in public words, as runFfmpeg's. */
export function runReadyFfmpeg(ready: ReadyTool, answer: InputAnswer, graph: { pixels: string; jpeg: string }, options: FfmpegOptions): Promise<RunResult> {
  return checked(ready.take(answer, graph.pixels, { signal: options.signal, timeoutMs: options.timeoutMs, jpegGraph: graph.jpeg }), options);
}

/** A failed run's public reason: damaged input, or a processing failure. */
export function ffmpegFailure(task: string, stderr: string): JobFailure {
  const cause = stderr.slice(-4000);
  if (/Invalid data found|corrupt|error while decoding|moov atom not found|Invalid NAL|truncat/i.test(stderr)) {
    return new JobFailure("corrupt_media", `${task} failed: the input is damaged or truncated and cannot be decoded`, { cause });
  }
  if (/Cannot allocate memory|out of memory/i.test(stderr)) {
    return new JobFailure("resource_limit_exceeded", `${task} failed: it needed more memory than a tool may use on this processor; ask for a smaller size`, { cause });
  }
  if (/No space left on device/i.test(stderr)) {
    return new JobFailure("processing_failed", `${task} failed: the processor ran out of disk space`, { cause });
  }
  return new JobFailure("processing_failed", `${task} failed`, { cause });
}

/**
 * Turns `-progress` output into fractions of `durationS`. Lines may arrive split across
 * chunks. `out_time_ms` is in microseconds too (an old ffmpeg misnomer).
 */
export function progressParser(durationS: number, onProgress: (fraction: number) => void): (chunk: string) => void {
  let pending = "";
  let best = 0;
  return (chunk) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const m = /^(out_time_us|out_time_ms|progress)=(.*)$/.exec(line.trim());
      if (!m) continue;
      let fraction: number;
      if (m[1] === "progress") {
        if (m[2] !== "end") continue;
        fraction = 1;
      } else {
        const us = Number(m[2]);
        if (!Number.isFinite(us) || us < 0) continue;
        fraction = Math.min(1, us / 1e6 / durationS);
      }
      if (fraction > best) {
        best = fraction;
        onProgress(fraction);
      }
    }
  };
}

/** Seconds as ffmpeg reads them, to the microsecond. */
export function seconds(s: number): string {
  return (Math.round(s * 1e6) / 1e6).toString();
}

/** "10.5 s", "12 min 30 s", "4 h", "1 h 5 min". */
export function describeDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 100) / 100} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return s > 0 ? `${m} min ${s} s` : `${m} min`;
}

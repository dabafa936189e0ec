// Runs ffmpeg on local files with a time limit, reporting progress from `-progress`.
// Always: the process group is killed at once on cancel or when the limit passes
// (runTool), and a failure is reported in public words, with ffmpeg's own log as cause.
import type { Config } from "../config.ts";
import { JobCancelled, JobFailure } from "../errors.ts";
import { runTool, type RunResult } from "./spawn.ts";

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
}

/** ffmpeg's time limit for an input: generous (60 s + 20× its length), never past the job's. */
export function ffmpegTimeoutMs(durationS: number, config: Pick<Config, "JOB_TIMEOUT_MS">): number {
  return Math.min(config.JOB_TIMEOUT_MS, Math.ceil(60_000 + 20_000 * durationS));
}

export async function runFfmpeg(args: string[], options: FfmpegOptions): Promise<RunResult> {
  const onStdout = options.onProgress && options.durationS ? progressParser(options.durationS, options.onProgress) : undefined;
  let run: RunResult;
  try {
    run = await runTool("ffmpeg", [...globalOptions(), ...args], { signal: options.signal, timeoutMs: options.timeoutMs, onStdout });
  } catch (error) {
    throw new JobFailure("processing_failed", "ffmpeg is not available on this processor", { cause: error });
  }
  if (run.aborted) throw abortError(options.signal);
  if (run.timedOut) {
    throw new JobFailure("processing_timeout", `${options.task} took longer than its limit of ${describeDuration(options.timeoutMs / 1000)}`);
  }
  if (run.code !== 0) throw ffmpegFailure(options.task, run.stderr);
  return run;
}

/**
 * Why a run was stopped by its signal: the job's own time limit (AbortSignal.timeout,
 * whose reason is a TimeoutError) is a processing_timeout; anything else is a cancel.
 */
export function abortError(signal: AbortSignal): JobFailure | JobCancelled {
  if ((signal.reason as Error | undefined)?.name === "TimeoutError") {
    return new JobFailure("processing_timeout", "processing took longer than the job's time limit");
  }
  return new JobCancelled();
}

/** A failed run's public reason: damaged input, or a processing failure. */
export function ffmpegFailure(task: string, stderr: string): JobFailure {
  const cause = stderr.slice(-4000);
  if (/Invalid data found|corrupt|error while decoding|moov atom not found|Invalid NAL|truncat/i.test(stderr)) {
    return new JobFailure("corrupt_media", `${task} failed: the input is damaged or truncated and cannot be decoded`, { cause });
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

// Where a job's time went: each tool run (spawn.ts records every one, by tool name) and
// each in-process step (sharp's decode and encode), in milliseconds, in order. The job
// table opens one StepLog per attempt and runs the work inside it (`steps.run`); the
// steps find their job's log through AsyncLocalStorage, so jobs running at once on one
// processor never mix, and no tool needs the log passed down to it.
import { AsyncLocalStorage } from "node:async_hooks";

export interface StepTime {
  /** The tool (`ffprobe`, `ffmpeg`, `gs`, `qpdf`, `heif-convert`) or in-process step (`sharp encode`). */
  step: string;
  ms: number;
  /** When it started, in ms after the log was opened: steps that overlap (ffmpeg started beside ffprobe) show it. */
  atMs: number;
}

const current = new AsyncLocalStorage<StepLog>();

export class StepLog {
  readonly #steps: StepTime[] = [];
  readonly #opened = performance.now();

  /** Runs `work` with this log as the one its steps, and those of work it starts, are recorded in. */
  run<T>(work: () => T): T {
    return current.run(this, work);
  }

  /** Runs `work` as one step named `step`, recorded here whatever `work`'s outcome. */
  async time<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.#steps.push({ step, ms: Math.round(performance.now() - started), atMs: Math.round(started - this.#opened) });
    }
  }

  /** Every step, in the order they ended. */
  list(): StepTime[] {
    return [...this.#steps];
  }

  /** Milliseconds per step name, summed over its runs (overlapping runs counted in full): `{ ffprobe: 41, ffmpeg: 120 }`. */
  totals(): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const { step, ms } of this.#steps) totals[step] = (totals[step] ?? 0) + ms;
    return totals;
  }
}

/** Runs `work` as a step of the job whose log is current; outside a job, just runs it. */
export function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const log = current.getStore();
  return log ? log.time(name, work) : work();
}

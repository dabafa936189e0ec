// What a processor module gets and gives. The framework (jobs.ts) downloads the input
// once, gives each processor a private work directory, and collects the outputs it
// registers; a processor's result holds output names where the API will put signed URLs.
// Its steps are timed without its help: every tool run (tools/spawn.ts) and sharp step is
// recorded in the StepLog the processor runs in (steps.ts).
import type { JobParams, JobType } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import type { Config } from "../config.ts";

export interface ProcessorContext {
  input: { path: string; size: number };
  workDir: string;
  signal: AbortSignal;
  config: Config;
  /** Reports progress, 0–100. Never goes backwards. */
  setProgress(percent: number): void;
  /** Registers an output file and returns the path to write it to. `name` goes in the result's `url`. */
  addOutput(name: string, contentType: string): string;
}

/** Resolves to the type's result with output names as its `url`s; the runner checks it against the schema. */
export type Processor<T extends JobType> = (params: JobParams<T>, ctx: ProcessorContext) => Promise<StoredResult<T>>;

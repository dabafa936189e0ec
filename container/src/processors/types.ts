// What a processor module gets and gives. The framework (jobs.ts) reads the input
// (input-source.ts), gives each processor a private work directory, and collects the outputs it
// registers; a processor's result holds output names where the API will put signed URLs.
// Its steps are timed without its help: every tool run (tools/spawn.ts) and sharp step is
// recorded in the StepLog the processor runs in (steps.ts).
import type { FanoutOffer, FanoutPlan, JobPart } from "../../../src/contract/fanout.ts";
import type { JobParams, JobType } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import type { Config } from "../config.ts";
import type { InputAnswer } from "../tool-relay.ts";

/** A job's input (container/src/input-source.ts InputSource). */
export interface ProcessorInput {
  /**
   * The local copy. Complete when the processor starts, unless its type is one of
   * READS_INPUT_AS_NEEDED (processors/index.ts): then complete once `file()` has resolved.
   */
  readonly path: string;
  /** Bytes. */
  readonly size: number;
  /**
   * What the ffmpeg family opens, with `inputOptions(source)` (tools/ffprobe.ts): the local
   * copy once complete, else a loopback URL that serves it with Range, each read fetched
   * from the origin as it comes (a seek reads only the bytes it lands on).
   */
  readonly source: string;
  /** Completes the local copy and resolves to `path`. */
  file(): Promise<string>;
  /** Starts fetching the rest in order without waiting (for a tool that reads all of it, so the download runs at the network's pace beside it). */
  fillAll(): void;
  /** The first `bytes` bytes (fewer for a shorter input). */
  head(bytes: number): Promise<Buffer>;
  /** Answers a tool's request for the input on a URL other than `source` (a ready probe's, tools/ready-tools.ts); absent for a local file. */
  answer?: InputAnswer;
}

export interface ProcessorContext {
  input: ProcessorInput;
  workDir: string;
  signal: AbortSignal;
  config: Config;
  /** Reports progress, 0–100. Never goes backwards. */
  setProgress(percent: number): void;
  /** Registers an output file and returns the path to write it to. `name` goes in the result's `url`. */
  addOutput(name: string, contentType: string): string;
  /**
   * Uploads outputs now, before the job completes, and then announces the job playable at
   * `playlist` (an output among them): a player may read them at once, so they never change
   * after (their files pass to the processor, out of the tools' reach). Registering one
   * again with addOutput makes it a new version, uploaded again at the end (a master
   * playlist that grows). Resolves once announced, or given up (logged); never rejects.
   */
  publish(outputs: string[], playlist: string): Promise<void>;
  /**
   * Opens another input of the job by its URL (videoConcat's `append`), under the same
   * address rules, limits and uid as `input`, read as its tools need it; closed with the job.
   */
  openInput(url: string): Promise<ProcessorInput>;
  /** A compressVideo or videoAdaptive attempt that may split its encode across seats (docs/fanout.md); absent: it encodes alone. */
  fanout?: FanoutOffer;
  /** The part of a fanned-out job this attempt does; absent: the whole job. */
  part?: JobPart;
  /** Answers with a fan-out plan instead of a result: the runner runs the parts (the processor then returns `{}`; outputs it published before stay the job's). */
  plan(plan: FanoutPlan): void;
  /** A stitch's n-th part (chunks in order, then the audio, then a videoAdaptive's copied top rendition when its plan reads it back), read through the runner; part 0 is `input`. */
  openPart(n: number): Promise<ProcessorInput>;
}

/** Resolves to the type's result with output names as its `url`s; the runner checks it against the schema. */
export type Processor<T extends JobType> = (params: JobParams<T>, ctx: ProcessorContext) => Promise<StoredResult<T>>;

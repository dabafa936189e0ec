// The processor's job table: one entry per attempt, run in the background, its outputs
// uploaded and its events pushed to the runner's callback (events.ts).
import { timingSafeEqual } from "node:crypto";
import { chmodSync, chownSync, lstatSync, mkdirSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  isOutputName,
  MAX_OUTPUT_BYTES,
  OUTPUT_CONTENT_TYPES,
  otherUploads,
  readsThroughRunner,
  type ProcessorJobRequest,
  type ProcessorJobState,
  type ProcessorOutput,
  type ProcessorTimings,
} from "../../src/contract/processor-protocol.ts";
import type { FanoutPlan } from "../../src/contract/fanout.ts";
import type { JobError } from "../../src/contract/job.ts";
import type { JobType } from "../../src/contract/registry.ts";
import type { StoredResult } from "../../src/contract/stored-result.ts";
import { takeToolFile, toolFileSize } from "./attempt-files.ts";
import type { Config } from "./config.ts";
import { JobCancelled, JobFailure, stopped } from "./errors.ts";
import { EventPusher, type OutputFile } from "./events.ts";
import { formatBytes } from "./input-origin.ts";
import { InputSource } from "./input-source.ts";
import { decideIsolation, ToolIdentities, withIdentity, type IsolationState, type ToolLease } from "./isolation.ts";
import { log } from "./log.ts";
import { PushPaths } from "./push-path.ts";
import { processors, READS_INPUT_AS_NEEDED, startsImageTool } from "./processors/index.ts";
import type { Processor } from "./processors/types.ts";
import { StepLog, type StepTime } from "./steps.ts";
import { IMAGE_TOOL_PROGRAMS, imageProcess, takeReadyImageTool } from "./tools/image-process.ts";

/** Outputs uploaded at once: a job's frames go side by side, without one upload per frame in a row. */
const UPLOADS_AT_ONCE = 4;

/**
 * A start as the table takes it: the protocol's, whose callback (with the attempt's token)
 * the API requires; the processor's own tests run jobs without one.
 */
export type StartRequest = Omit<ProcessorJobRequest, "callback"> & Partial<Pick<ProcessorJobRequest, "callback">>;

interface Entry {
  id: string;
  /** The attempt's token (its callback's): the attempt's routes ask for it (`holds`). */
  token?: string;
  state: ProcessorJobState["state"];
  progress: number;
  dir: string;
  controller: AbortController;
  outputs: Map<string, Omit<OutputFile, "name">>;
  /** Outputs uploaded before the end (ProcessorContext.publish), as they were: not uploaded again. */
  published: Set<string>;
  result?: StoredResult;
  /** A fan-out the attempt planned instead of encoding (contract/fanout.ts): its completed state carries it. */
  plan?: FanoutPlan;
  error?: JobError;
  finishedAt?: number;
  timings: ProcessorTimings;
  events?: EventPusher;
  done: Promise<void>;
  /** Its final state pushed to the runner (or given up): what a drain waits for before the process exits. */
  reported: Promise<void>;
  /** Stopped by a drain's deadline: reported `cancelled` with `handedBack`, so the runner starts it again elsewhere uncharged. */
  handedBack?: true;
  /** Each tool run and sharp step of the work, for the "job finished" log line. */
  steps: StepLog;
}

/**
 * The attempts this processor has. Always: a job's child processes and uploads are stopped on
 * cancel, and its work directory is removed on DELETE or when nobody releases it within
 * FINISHED_JOB_TTL_MS.
 */
export class JobTable {
  readonly #jobs = new Map<string, Entry>();
  readonly #config: Config;
  /** Set by drain(): no new attempt starts here. */
  #draining = false;
  /** Whether the attempts' events reach the runner (push-path.ts). */
  readonly pushPaths: PushPaths;
  /** Whether each attempt's tools run under a uid of their own (isolation.ts), and why not. */
  readonly isolation: IsolationState;
  /** The uids attempts and ready processes run under, when isolated. */
  readonly identities?: ToolIdentities;

  /** Throws when ISOLATION=on and tools cannot be isolated here: the processor refuses to start. */
  constructor(config: Config) {
    this.#config = config;
    this.pushPaths = new PushPaths(config);
    this.isolation = decideIsolation(config, IMAGE_TOOL_PROGRAMS);
    if (this.isolation.on) {
      this.identities = new ToolIdentities(config);
      // Tools pass through it to their own attempt's directory, and list nothing in it.
      mkdirSync(config.workDir, { recursive: true });
      chmodSync(config.workDir, 0o711);
    }
  }

  get running(): number {
    return [...this.#jobs.values()].filter((j) => j.state === "running").length;
  }

  /** True once drain() began: the process is going away (app.ts refuses new starts with 503). */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Starts a job; starting the same id again with the same token returns the existing job,
   * with another token "wrong token" (someone else's start of that id). "draining": a new id
   * while the processor drains.
   */
  start(request: StartRequest): ProcessorJobState | "wrong token" | "draining" {
    const existing = this.#jobs.get(request.id);
    if (existing) return this.holds(request.id, request.callback?.token) ? view(existing) : "wrong token";
    if (this.#draining) return "draining";
    const entry: Entry = {
      id: request.id,
      token: request.callback?.token,
      state: "running",
      progress: 0,
      dir: join(this.#config.workDir, safeName(request.id)),
      controller: new AbortController(),
      outputs: new Map(),
      published: new Set(),
      timings: {},
      done: Promise.resolve(),
      reported: Promise.resolve(),
      steps: new StepLog(),
    };
    if (request.callback) entry.events = new EventPusher(request.callback, this.#config, () => view(entry), (url) => this.pushPaths.pushFailed(url));
    this.#jobs.set(request.id, entry);
    entry.done = this.#run(entry, request);
    return view(entry);
  }

  /**
   * Whether `token` is attempt `id`'s own (constant time): true also for an attempt started
   * without a token and asked without one (the processor's own tests), never else.
   */
  holds(id: string, token: string | undefined): boolean {
    const entry = this.#jobs.get(id);
    if (!entry) return false;
    if (entry.token === undefined || token === undefined) return entry.token === token;
    const [a, b] = [Buffer.from(entry.token), Buffer.from(token)];
    return a.length === b.length && timingSafeEqual(a, b);
  }

  get(id: string): ProcessorJobState | undefined {
    const entry = this.#jobs.get(id);
    return entry && view(entry);
  }

  /** The attempt's tool runs and in-process steps so far, in order. */
  steps(id: string): StepTime[] {
    return this.#jobs.get(id)?.steps.list() ?? [];
  }

  output(id: string, name: string) {
    const entry = this.#jobs.get(id);
    return entry?.state === "completed" ? entry.outputs.get(name) : undefined;
  }

  async cancel(id: string): Promise<ProcessorJobState | undefined> {
    const entry = this.#jobs.get(id);
    if (!entry) return undefined;
    if (entry.state === "running") {
      entry.controller.abort();
      await entry.done;
    }
    return view(entry);
  }

  async remove(id: string): Promise<void> {
    const entry = this.#jobs.get(id);
    if (!entry) return;
    entry.controller.abort();
    entry.events?.stop();
    await entry.done;
    this.#jobs.delete(id);
    await rm(entry.dir, { recursive: true, force: true });
  }

  /**
   * The processor is going away (SIGTERM: server.ts). No new attempt starts; the running ones
   * go on to their end, uploads and final pushes included, until `deadlineMs` from now; any
   * still running then is stopped and reported `cancelled` with `handedBack` (the runner
   * starts it again elsewhere without charging an attempt). Resolves once every attempt's
   * end was reported (or its push given up), so the caller can exit.
   */
  async drain(deadlineMs: number): Promise<void> {
    this.#draining = true;
    const running = [...this.#jobs.values()].filter((j) => j.state === "running");
    log("info", "draining", { running: running.length, deadlineMs });
    const ended = Promise.all(running.map((j) => j.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), deadlineMs)));
    if ((await Promise.race([ended, deadline])) === "deadline") {
      for (const entry of running) {
        if (entry.state !== "running") continue;
        entry.handedBack = true;
        entry.controller.abort();
      }
      log("warn", "drain deadline reached; handing back what still runs", { jobs: running.filter((j) => j.handedBack).map((j) => j.id) });
      await ended;
    }
    clearTimeout(timer);
    // Every final push, also of a job that ended just before the signal (its push may still be on its way).
    await Promise.all([...this.#jobs.values()].map((j) => j.reported));
    // Then the runners' releases (DELETE), which come once each end is recorded (and an
    // output the runner copies from here is copied): a short wait, bounded.
    const releaseBy = Date.now() + this.#config.DRAIN_RELEASE_WAIT_MS;
    while (this.#jobs.size > 0 && Date.now() < releaseBy) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  /** Removes finished jobs nobody collected. */
  async sweep(now: number): Promise<void> {
    for (const entry of this.#jobs.values()) {
      if (entry.finishedAt !== undefined && now - entry.finishedAt > this.#config.FINISHED_JOB_TTL_MS) await this.remove(entry.id);
    }
  }

  async #run(entry: Entry, request: StartRequest): Promise<void> {
    const signal = AbortSignal.any([entry.controller.signal, AbortSignal.timeout(this.#config.JOB_TIMEOUT_MS)]);
    const started = Date.now();
    const setProgress = (percent: number) => {
      const next = Math.max(entry.progress, Math.min(99, Math.round(percent)));
      if (next === entry.progress) return;
      entry.progress = next;
      entry.events?.progressed();
    };
    const steps = entry.steps;
    let input: InputSource | undefined;
    // A type's other inputs (videoConcat's `append`), opened by its processor (`openInput`).
    const others: InputSource[] = [];
    const othersFailed = new AbortController();
    let lease: ToolLease | undefined;
    try {
      const processor = processors[request.type];
      if (!processor) throw new JobFailure("processing_failed", `${request.type} jobs are not available on this processor yet`);
      // The attempt's uid, and its directory: only it and the processor reach what is in there.
      // A type that calls sharp takes a ready image tool with the uid it runs under (tools/image-process.ts).
      const usesImages = startsImageTool(request.type, request.params);
      lease = (usesImages ? takeReadyImageTool()?.lease : undefined) ?? (await this.identities?.acquire(signal));
      if (lease) {
        await lease.prepare(entry.dir);
        await lease.directory(join(entry.dir, "out"));
      } else {
        await mkdir(join(entry.dir, "out"), { recursive: true });
      }
      // Else it starts its image tool now, beside the input's fetch.
      if (usesImages) imageProcess(lease?.identity);
      const toolSecret = lease?.identity.relaySecret;
      const fetchStart = Date.now();
      // A stitch's first input is its first chunk (`<input>/0`); it opens the others by number (`openPart`).
      const fromRunner = request.callback?.input && (request.part?.role === "stitch" ? `${request.callback.input}/0` : readsThroughRunner(request.params.url) ? request.callback.input : undefined);
      input = fromRunner
        ? await InputSource.open(fromRunner, join(entry.dir, "input"), { limits: this.#config, signal, fromRunner: { token: request.callback!.token }, toolSecret })
        : await InputSource.open(request.params.url, join(entry.dir, "input"), { limits: this.#config, signal, toolSecret });
      // A type not converted to reading its input as needed starts on the complete local file, as always.
      if (!READS_INPUT_AS_NEEDED.has(request.type)) await input.file();
      entry.timings.fetchInputMs = Date.now() - fetchStart;
      setProgress(5);
      const processStart = Date.now();
      // The input failing while the tools read it (a refused redirect, a limit, the origin
      // gone) stops them; the job then reports the input's failure, not the tools'.
      const work = AbortSignal.any([signal, input.failed.signal, othersFailed.signal]);
      const source = input;
      const identity = lease?.identity;
      const result = await steps.run(() => withIdentity(identity, () => (processor as Processor<JobType>)(request.params, {
        input: source,
        workDir: entry.dir,
        signal: work,
        config: this.#config,
        setProgress,
        addOutput: (name: string, contentType: string) => {
          // Checked here, where a new job type would first break the rule, not at its upload.
          if (!isOutputName(name) || !OUTPUT_CONTENT_TYPES.includes(contentType)) throw new Error(`output ${name} (${contentType}) is not an output name and type the Worker stores`);
          // A name in a folder (`stream/master.m3u8`) is written in that folder, as a muxer writing relative URIs expects.
          const path = join(entry.dir, "out", ...name.split("/").map(safeName));
          outputDirectory(join(entry.dir, "out"), dirname(path), lease);
          entry.outputs.set(name, { path, contentType, size: 0 });
          // A published output registered again is a new version (a grown playlist), uploaded at the end.
          entry.published.delete(name);
          return path;
        },
        publish: (names: string[], playlist: string) =>
          publish(entry, names, playlist, identity?.uid, AbortSignal.any([signal, ...(request.callback ? [this.pushPaths.brokenSignal(request.callback.url)] : [])])),
        openInput: async (url: string) => {
          // An upload among them is read through the runner, by its place (contract/processor-protocol.ts otherUploads).
          const place = otherUploads(request.params).find((o) => o.url === url)?.place;
          const through = place !== undefined && request.callback?.input ? { url: `${request.callback.input}/${place}`, fromRunner: { token: request.callback.token } } : undefined;
          const other = await InputSource.open(through?.url ?? url, join(entry.dir, `input-${others.length + 1}`), { limits: this.#config, signal, toolSecret, ...(through ? { fromRunner: through.fromRunner } : {}) });
          others.push(other);
          other.failed.signal.addEventListener("abort", () => othersFailed.abort(), { once: true });
          return other;
        },
        ...(request.fanout ? { fanout: request.fanout } : {}),
        ...(request.part ? { part: request.part } : {}),
        plan: (plan: FanoutPlan) => {
          entry.plan = plan;
        },
        openPart: async (n: number) => {
          if (request.part?.role !== "stitch" || !request.callback?.input) throw new Error("only a stitch reads parts");
          const other = await InputSource.open(`${request.callback.input}/${n}`, join(entry.dir, `part-${n}`), { limits: this.#config, signal, fromRunner: { token: request.callback.token }, toolSecret });
          others.push(other);
          other.failed.signal.addEventListener("abort", () => othersFailed.abort(), { once: true });
          return other;
        },
      })));
      // Its tools have all ended: the uid is reclaimed (anything of it still running, which only
      // a hostile tool's escapee would be, is killed) beside the outputs' checks and upload, off
      // the job's path (a kill as the uid is two programs' start, 7-33 ms). Until then such a
      // process could still change the attempt's own outputs, never another's: each is read
      // without following links and only if its uid or the processor's (attempt-files.ts), and
      // its upload is checked against the length found here.
      const reclaimed = lease?.release();
      const inputFailure = input.failure ?? others.find((other) => other.failure)?.failure;
      if (inputFailure) throw inputFailure;
      if (entry.controller.signal.aborted) throw new JobCancelled();
      for (const [name, output] of entry.outputs) {
        // Only a regular file the attempt's tools or the processor wrote, never a link a tool left (attempt-files.ts).
        output.size = await toolFileSize(output.path, lease?.identity.uid);
        if (output.size > MAX_OUTPUT_BYTES) throw new JobFailure("processing_failed", `the output ${name} is ${formatBytes(output.size)}, more than the ${formatBytes(MAX_OUTPUT_BYTES)} an output may be; ask for a lower quality or a smaller size`);
      }
      entry.timings.processMs = Date.now() - processStart;
      entry.result = result;
      if (entry.events) await upload(entry, entry.events, signal, this.pushPaths.brokenSignal(request.callback!.url));
      await reclaimed;
      entry.progress = 100;
      entry.state = "completed";
    } catch (error) {
      // Stopped by its signal: the caller's cancel, or the job's own time limit (errors.ts
      // decides); else the input's own failure, which stopped the tools, before theirs.
      const failure = signal.aborted ? stopped(signal, this.#config.JOB_TIMEOUT_MS) : (input?.failure ?? others.find((other) => other.failure)?.failure ?? error);
      if (failure instanceof JobCancelled) {
        entry.state = "cancelled";
      } else if (failure instanceof JobFailure) {
        entry.state = "failed";
        entry.error = { code: failure.code, message: failure.message };
        log("info", "job failed", { job: entry.id, code: failure.code, cause: String((failure.cause as Error)?.message ?? "") });
      } else {
        entry.state = "failed";
        entry.error = { code: "processing_failed", message: "processing failed unexpectedly; the error has been logged" };
        log("error", "job crashed", { job: entry.id, error: String((error as Error)?.stack ?? error) });
      }
      // Nothing of a failed or cancelled job is served, so its files can go now (its tools' processes first).
      await input?.close();
      for (const other of others) await other.close();
      await lease?.release();
      await rm(entry.dir, { recursive: true, force: true });
    } finally {
      await input?.close();
      for (const other of others) await other.close();
      await lease?.release();
      entry.finishedAt = Date.now();
      log("info", "job finished", { job: entry.id, type: request.type, state: entry.state, ms: entry.finishedAt - started, ...entry.timings, input: input?.stats, steps: steps.list() });
      // Not awaited by `done`: a cancel or DELETE must not wait for the runner to answer. A drain waits for it.
      entry.reported = entry.events?.finished() ?? Promise.resolve();
    }
  }
}

/**
 * Uploads the attempt's outputs to the runner's callback, a few at a time, before its
 * completion is pushed; `storeOutputMs` is their time. An output not stored is left for the
 * runner to copy from here, as are all of them once the push path is found broken
 * (`pathBroken`); the runner refusing one (409) ends the attempt as cancelled.
 */
async function upload(entry: Entry, events: EventPusher, signal: AbortSignal, pathBroken: AbortSignal): Promise<void> {
  const started = Date.now();
  const queue = [...entry.outputs].filter(([name]) => !entry.published.has(name)).map(([name, o]) => ({ name, ...o }));
  // One refusal stops the uploads still under way: the runner wants none of them.
  const refusal = new AbortController();
  const uploads = AbortSignal.any([signal, refusal.signal, pathBroken]);
  const worker = async () => {
    for (let output = queue.shift(); output && !uploads.aborted; output = queue.shift()) {
      if ((await events.upload(output, uploads)) === "refused") refusal.abort();
    }
  };
  await Promise.all(Array.from({ length: Math.min(UPLOADS_AT_ONCE, queue.length) }, worker));
  // Cancelled, timed out (both abort `signal`) or refused: the attempt does not complete.
  if (signal.aborted || refusal.signal.aborted) throw new JobCancelled();
  entry.timings.storeOutputMs = Date.now() - started;
}

/**
 * ProcessorContext.publish: the outputs taken from the tools (they can no longer change them),
 * uploaded side by side, and once all are stored the job announced playable at `playlist`.
 * An output not stored is left for the end's upload, and nothing is announced. Never rejects.
 */
async function publish(entry: Entry, names: string[], playlist: string, uid: number | undefined, signal: AbortSignal): Promise<void> {
  try {
    const files: OutputFile[] = [];
    for (const name of names) {
      const output = entry.outputs.get(name);
      if (!output) throw new Error(`${name} is not an output of the attempt`);
      output.size = await takeToolFile(output.path, uid);
      files.push({ name, ...output });
    }
    const events = entry.events;
    const stored = events ? await Promise.all(files.map((file) => events.upload(file, signal))) : files.map(() => "stored" as const);
    if (!stored.every((s) => s === "stored")) return;
    for (const file of files) entry.published.add(file.name);
    if (events) await events.playable({ id: entry.id, url: playlist }, signal);
  } catch (error) {
    log("warn", "publishing outputs early failed; they go at the end", { job: entry.id, error: String(error) });
  }
}

function view(entry: Entry): ProcessorJobState {
  switch (entry.state) {
    case "completed": {
      const outputs: ProcessorOutput[] = [...entry.outputs].map(([name, o]) => ({ name, contentType: o.contentType, size: o.size }));
      return { id: entry.id, state: "completed", progress: 100, result: entry.result!, outputs, timings: entry.timings, ...(entry.plan ? { plan: entry.plan } : {}) };
    }
    case "failed":
      return { id: entry.id, state: "failed", progress: entry.progress, error: entry.error!, timings: entry.timings };
    case "cancelled":
      return { id: entry.id, state: "cancelled", progress: entry.progress, ...(entry.handedBack ? { handedBack: true } : {}) };
    default:
      return { id: entry.id, state: entry.state, progress: entry.progress } as ProcessorJobState;
  }
}

/**
 * Makes `dir` (within `out`, an output's folder such as `stream/`) as the processor's: with
 * isolation, root's and sticky like `out` itself, so a tool can write outputs in it but never
 * replace it with a link of its own. A name a tool took first fails the attempt.
 */
function outputDirectory(out: string, dir: string, lease: ToolLease | undefined): void {
  if (!lease) return void mkdirSync(dir, { recursive: true });
  for (let path = out, rest = dir.slice(out.length + 1).split("/").filter(Boolean); rest.length > 0; ) {
    path = join(path, rest.shift()!);
    try {
      mkdirSync(path, { mode: 0o700 });
      chownSync(path, 0, lease.identity.gid);
      chmodSync(path, 0o1770);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stats = lstatSync(path);
    if (!stats.isDirectory() || stats.uid !== 0) throw new JobFailure("processing_failed", "a tool took the name of an output folder; the attempt was stopped", { cause: new Error(path) });
  }
}

/** File-system-safe form of an id or output name. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
}

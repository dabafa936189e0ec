// A job's input read as its tools need it (docs/architecture.md, "How the processor reads an
// input"): byte ranges fetched from its origin on demand, or one download when the origin
// ignores ranges, into a sparse local copy; no byte is fetched twice while it answers ranges.
import { JobCancelled, JobFailure } from "./errors.ts";
import { formatBytes, InputOrigin, seconds, type FetchInputOptions, type OriginAnswer } from "./input-origin.ts";
import { answerReads } from "./input-server.ts";
import { LocalCopy } from "./local-copy.ts";
import { OriginRequests, type OriginRequest } from "./origin-requests.ts";
import { answeredRange, changedSince, versionOf, type InputVersion } from "./origin-answer.ts";
import { mp4IndexAfterMedia, MP4_BOXES_SEEN_BYTES } from "./mp4-index.ts";
import type { ProcessorInput } from "./processors/types.ts";
import { ToolRelay, type InputAnswer, type RelayRoute } from "./tool-relay.ts";
import { INPUT_READING_DEFAULTS, readingSettings, type InputReading } from "./config.ts";

/** How an input is opened: the fetch's rules, and the relay secret of the attempt's tools (isolation.ts ToolIdentity), the only ones its URL answers. */
export type InputSourceOptions = FetchInputOptions & { toolSecret?: string };

/** The first request's range by default: INPUT_FIRST_READ_BYTES. */
export const FIRST_READ_BYTES = INPUT_READING_DEFAULTS.INPUT_FIRST_READ_BYTES;

/** What one input's reading cost at the origin, for the job's log line. */
export interface InputReadStats {
  mode: "ranges" | "whole";
  /** Bytes received from the origin. */
  fetchedBytes: number;
  /** Requests to the origin. */
  requests: number;
  /** Reads the tools made of the loopback URL (ffmpeg's http makes one per seek past what it has). */
  toolReads: number;
}

/**
 * One job's input. `open` makes the first request; then `url` serves the input to tools
 * (each read filled from the origin as it goes), `file()` completes the local copy at
 * `path`. Always: `close()` stops every request, the server and the copy's handle.
 */
export class InputSource implements ProcessorInput {
  readonly path: string;
  /** Set by open(): the input's size, from the first answer (or, without one, from the whole download). */
  size = 0;
  #copy!: LocalCopy;
  readonly #requests = new OriginRequests();
  #waiters: (() => void)[] = [];
  #failure?: Error;
  #whole?: Promise<void>;
  #route?: RelayRoute;
  readonly #origin: InputOrigin;
  readonly #options: FetchInputOptions;
  /** Transfer time left: INPUT_TOTAL_TIMEOUT_MS counted over every request (time waiting on the tools does not count). */
  #budgetMs: number;
  #version: InputVersion = {};
  /** The window sizes (config.ts INPUT_*_BYTES, which says what each is for). */
  readonly #reading: InputReading;
  #closed = false;
  /** The first range answer stated the input's size: readers rely on it from then on. */
  #sizeStated = false;
  readonly stats: InputReadStats = { mode: "ranges", fetchedBytes: 0, requests: 0, toolReads: 0 };
  /** Fired when the input fails: the job's tools stop, and the job reports this failure. */
  readonly failed = new AbortController();

  private constructor(rawUrl: string, path: string, options: FetchInputOptions) {
    this.path = path;
    this.#options = options;
    this.#budgetMs = options.limits.INPUT_TOTAL_TIMEOUT_MS;
    this.#reading = readingSettings(options.limits);
    this.#origin = new InputOrigin(rawUrl, options);
  }

  /**
   * Asks for the input's first INPUT_FIRST_READ_BYTES by range, and serves it on loopback. An
   * answer with its size in Content-Range makes later reads range requests; a whole answer
   * (the origin ignores Range) or a range answer that does not add up (its length, its
   * Content-Length) makes it one download from the start, which tools read as it arrives.
   * Resolves once the size is known; rejects with the input's JobFailure.
   */
  static async open(rawUrl: string, path: string, options: InputSourceOptions): Promise<InputSource> {
    const source = new InputSource(rawUrl, path, options);
    try {
      source.#copy = await LocalCopy.open(path, { written: () => source.#notify(), failed: (failure) => source.#fail(failure) });
      await source.#first();
      source.#route = (await ToolRelay.shared()).open(path, options.toolSecret, source.answer);
      return source;
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  /** The loopback URL tools open: a random path on the tool relay, for this job's tools only. */
  get url(): string {
    return this.#route?.url ?? "";
  }

  /** What the ffmpeg family opens: the local copy once complete, else the loopback URL (seekable, filled as read). */
  get source(): string {
    return this.complete ? this.path : this.url;
  }

  get complete(): boolean {
    return this.#copy.held.firstGap(this.size) === null && this.#copy.written && !this.#failure;
  }

  get mode(): "ranges" | "whole" {
    return this.stats.mode;
  }

  /** The input's failure (a refused redirect, a limit, the origin gone), once it failed. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Completes the local copy (the rest from the origin, in order) and resolves to its path. */
  async file(): Promise<string> {
    this.fillAll();
    for (;;) {
      this.#throwIfFailed();
      if (this.complete) return this.path;
      await this.#changed();
    }
  }

  /** Starts filling the rest in order without waiting: for tools that read everything, so the download runs at the network's pace, not theirs. */
  fillAll(): void {
    this.#whole ??= this.stats.mode === "whole" ? Promise.resolve() : this.#fillGaps();
  }

  /** Bytes [start, start + length) of the input (fewer at its end), fetched if they are not here yet. */
  async read(start: number, length: number): Promise<Buffer> {
    const end = Math.min(this.size, start + length);
    const buffer = Buffer.alloc(Math.max(0, end - start));
    const next = this.reader(false);
    for (let pos = start; pos < end; ) {
      const bytes = await next(pos, end);
      bytes.copy(buffer, pos - start);
      pos += bytes.length;
    }
    return buffer;
  }

  /**
   * A reader of the input: each call gives the next bytes from `pos` toward `end` (one run of
   * those here, fetched first when `pos` is not), asking the origin in windows that double
   * as it reads on; with `readAhead`, the next window is asked for early (a tool reading on).
   */
  reader(readAhead: boolean): (pos: number, end: number) => Promise<Buffer> {
    let window = this.#reading.INPUT_MIN_WINDOW_BYTES;
    return async (pos, end) => {
      window = await this.#ensure(pos, window, readAhead);
      const until = Math.min(end, this.#copy.held.runEnd(pos));
      if (until <= pos) throw this.#failure ?? new JobFailure("input_unreachable", "the input ended before the bytes a tool asked for; send it again");
      const bytes = await this.#copy.bytesAt(pos, until);
      if (bytes.length === 0) throw this.#failure ?? new JobFailure("input_unreachable", "the input's local copy ended early; send it again");
      return bytes;
    };
  }

  /** Asks the origin for [start, end) in one request, from the first byte not here up to the next here or coming, unless a request already brings it; without waiting. */
  prefetch(start: number, end: number): void {
    const from = this.#copy.held.runEnd(start);
    if (this.#failure || this.stats.mode !== "ranges" || from >= Math.min(end, this.size) || this.#requests.bringing(from)) return;
    this.#fetchRange(from, end);
  }

  /** The input's first `bytes` bytes (fewer when it is shorter): what sniffing a refused input reads. */
  head(bytes: number): Promise<Buffer> {
    return this.read(0, bytes);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Nothing asks the origin again once closed: waiting readers and the gap filler see this failure and stop.
    this.#failure ??= new JobCancelled();
    this.#requests.stopAll();
    this.#route?.close();
    this.#origin.close();
    await this.#requests.settled();
    await this.#copy?.close();
    this.#notify();
  }

  async #first(): Promise<void> {
    const first = this.#reading.INPUT_FIRST_READ_BYTES;
    const answer = await this.#get(`bytes=0-${first - 1}`);
    const range = answer.status === 206 ? answeredRange(answer, 0, first, this.size) : null;
    if (!range) {
      // The origin ignores Range (200), or its range answer does not add up: one download from the start.
      if (answer.status !== 200) answer.response.destroy();
      return this.#startWhole(answer.status === 200 ? answer : undefined);
    }
    if (range.total > this.#options.limits.MAX_INPUT_BYTES) {
      answer.response.destroy();
      throw new JobFailure("input_too_large", `the input is ${formatBytes(range.total)}, over the limit of ${formatBytes(this.#options.limits.MAX_INPUT_BYTES)}`);
    }
    this.size = range.total;
    this.#sizeStated = true;
    this.#version = versionOf(answer);
    const fetch = this.#requests.track(0, range.end);
    fetch.done = this.#receive(answer, fetch);
    // The tools start now, beside the rest of the first range: their reads of it wait for it
    // (a request that will bring a reader's bytes is waited for), and its failure fails the input.
    await this.#askForTailIndex(fetch);
    this.#throwIfFailed();
  }

  /**
   * An MP4 or MOV with its index after the media data: once the first range shows its boxes
   * (ftyp, then an mdat running past the range, no moov before it), asks for the index from
   * the mdat's end at once (INPUT_TAIL_READ_BYTES at most), beside the rest of the first
   * range. The probe and the grab then find it here, instead of each tool's seek to the end
   * waiting for its own round trip to the origin.
   */
  async #askForTailIndex(first: OriginRequest): Promise<void> {
    const seen = Math.min(first.end, MP4_BOXES_SEEN_BYTES);
    while (this.#copy.held.runEnd(0) < seen && this.#requests.has(first) && !this.#failure) await this.#changed();
    const here = this.#copy.held.runEnd(0);
    if (this.#failure || here === 0 || here >= this.size) return;
    const head = await this.read(0, Math.min(here, MP4_BOXES_SEEN_BYTES));
    const tail = mp4IndexAfterMedia(head, here, this.size);
    // An index inside the first range comes with it (a short file read whole).
    if (tail === null || tail < first.end) return;
    this.#fetchRange(tail, Math.min(this.size, tail + this.#reading.INPUT_TAIL_READ_BYTES));
  }

  /** One download of the whole input from the start, into the local copy; the size waits for it only when the origin does not state it. */
  async #startWhole(answer?: OriginAnswer): Promise<void> {
    // Past the first answer the input's size is known, and readers are waiting on it: it never changes.
    const sized = this.#sizeStated ? this.size : undefined;
    this.stats.mode = "whole";
    this.#copy.held.clear();
    this.#requests.stopAll();
    // A range's write landing after the download's own write of those bytes would undo it.
    await this.#copy.landed();
    const response = answer ?? (await this.#get(undefined));
    const declared = Number(response.response.headers["content-length"]);
    const known = Number.isFinite(declared) && response.response.headers["content-length"] !== undefined;
    const changed = sized !== undefined && (!known || declared !== sized || changedSince(this.#version, response) !== undefined);
    if (changed) {
      response.response.destroy();
      throw new JobFailure("input_unreachable", `the input changed while it was read (it was ${sized} bytes, now ${known ? `${declared} bytes` : "of no stated length"}); send it again once it no longer changes`);
    }
    if (known) this.size = declared;
    const fetch = this.#requests.track(0, known ? declared : Infinity);
    fetch.done = this.#receive(response, fetch, { whole: true });
    this.#whole = fetch.done;
    if (!known) {
      await fetch.done;
      this.size = this.#copy.held.runEnd(0);
      this.#throwIfFailed();
    }
  }

  /** A GET under the transfer-time budget; its time is taken from the budget when its body has been read. */
  async #get(range: string | undefined, stop?: AbortSignal): Promise<OriginAnswer & { spent: () => void }> {
    if (this.#closed) throw this.#failure ?? new JobCancelled();
    if (this.#budgetMs <= 0) throw new JobFailure("input_unreachable", `downloading the input took longer than the limit of ${seconds(this.#options.limits.INPUT_TOTAL_TIMEOUT_MS)}`);
    const started = Date.now();
    const signal = AbortSignal.any([this.#options.signal, AbortSignal.timeout(this.#budgetMs), ...(stop ? [stop] : [])]);
    this.stats.requests++;
    const answer = await this.#origin.get(range, signal);
    let spent = false;
    return { ...answer, spent: () => !spent && ((spent = true), (this.#budgetMs -= Date.now() - started)) };
  }

  /**
   * Keeps an answer's body in the local copy from `fetch.pos`, each piece here as it
   * arrives (the copy writes it behind), until its end (which a later request may have pulled in: then this
   * one stops). Whatever fails becomes the input's failure.
   */
  async #receive(answer: OriginAnswer & { spent?: () => void }, fetch: OriginRequest, options: { whole?: boolean } = {}): Promise<void> {
    const max = this.#options.limits.MAX_INPUT_BYTES;
    const onStop = () => answer.response.destroy();
    fetch.stop.signal.addEventListener("abort", onStop, { once: true });
    try {
      await answer.read(async () => {
        for await (const chunk of answer.response as AsyncIterable<Buffer>) {
          if (fetch.stop.signal.aborted) return;
          const take = Math.min(chunk.length, fetch.end - fetch.pos);
          if (options.whole && fetch.pos + chunk.length > max) {
            throw new JobFailure("input_too_large", `the input is larger than the limit of ${formatBytes(max)}`);
          }
          this.stats.fetchedBytes += chunk.length;
          if (take > 0) {
            this.#copy.keep(chunk.subarray(0, take), fetch.pos);
            fetch.pos += take;
            this.#notify();
            while (this.#copy.full && !this.#failure) await this.#changed();
          }
          if (fetch.pos >= fetch.end) {
            // Pulled in by a later request (or the range is all here): the rest is not needed.
            if (!answer.response.complete) answer.response.destroy();
            return;
          }
        }
        if (!answer.response.complete) {
          throw new JobFailure("input_unreachable", "the input server closed the connection before sending the whole file");
        }
        if (options.whole && this.size > 0 && fetch.pos < this.size && Number.isFinite(fetch.end)) {
          throw new JobFailure("input_unreachable", "the input server closed the connection before sending the whole file");
        }
      });
    } catch (error) {
      if (!fetch.stop.signal.aborted) this.#fail(error);
    } finally {
      fetch.stop.signal.removeEventListener("abort", onStop);
      answer.spent?.();
      this.#requests.drop(fetch);
      this.#notify();
    }
  }

  /**
   * Resolves once byte `pos` is here, asking the origin for it when no request will bring
   * it soon: a range of `window` bytes (up to the next byte already here or asked for);
   * with `readAhead`, the next range too once `pos` is within half a window of what is
   * here. Returns the window for the reader's next request (doubled when it asked).
   */
  async #ensure(pos: number, window: number, readAhead = false): Promise<number> {
    for (;;) {
      this.#throwIfFailed();
      if (pos >= this.size) return window;
      const here = this.#copy.held.runEnd(pos);
      if (here > pos) {
        // A tool reading on: its next range is asked for while it reads the second half of this one, so it does not wait for each.
        const next = here < this.size && here - pos < window / 2 && !this.#requests.bringing(here);
        if (readAhead && next && this.stats.mode === "ranges") {
          this.#fetchRange(here, here + window);
          window = Math.min(this.#reading.INPUT_MAX_WINDOW_BYTES, window * 2);
        }
        return window;
      }
      const coming = this.#requests.bringing(pos, this.stats.mode === "whole" ? Infinity : this.#reading.INPUT_NEAR_BYTES);
      if (!coming && this.stats.mode === "ranges") {
        this.#fetchRange(pos, pos + window);
        window = Math.min(this.#reading.INPUT_MAX_WINDOW_BYTES, window * 2);
      }
      await this.#changed();
    }
  }

  /** Asks the origin for [start, end), cut short at the next byte here or already asked for; a request further back that would reach `start` later stops there. */
  #fetchRange(start: number, end: number): OriginRequest {
    const limit = Math.min(end, this.size, this.#copy.held.nextStart(start), this.#requests.nextAfter(start));
    // Nothing to ask for (the bytes are here or coming): never an empty range, which no origin answers as one.
    if (limit <= start) return OriginRequests.none(start);
    this.#requests.cutAt(start);
    const fetch = this.#requests.track(start, limit);
    fetch.done = (async () => {
      let answer;
      try {
        answer = await this.#get(`bytes=${start}-${limit - 1}`, fetch.stop.signal);
      } catch (error) {
        this.#requests.drop(fetch);
        if (!fetch.stop.signal.aborted) this.#fail(error);
        return;
      }
      const changed = changedSince(this.#version, answer);
      if (answer.status !== 206 || !answeredRange(answer, start, limit, this.size) || changed) {
        answer.response.destroy();
        answer.spent();
        this.#requests.drop(fetch);
        if (changed) return this.#fail(new JobFailure("input_unreachable", `the input changed while it was read (${changed}); send it again once it no longer changes`));
        // A range answer that does not add up: read the input from the start instead, as a plain download.
        if (this.stats.mode === "ranges") await this.#startWhole().catch((error: unknown) => this.#fail(error));
        return;
      }
      await this.#receive(answer, fetch);
    })();
    return fetch;
  }

  /** Fills every gap in order, one request per gap (a gap's request stops where a reader's request begins). */
  async #fillGaps(): Promise<void> {
    for (;;) {
      if (this.#failure || this.stats.mode === "whole") return;
      const gap = this.#copy.held.firstGap(this.size);
      if (gap === null) return;
      await (this.#requests.bringing(gap) ?? this.#fetchRange(gap, this.size)).done;
    }
  }

  #fail(error: unknown): void {
    if (this.#failure) return;
    this.#failure = error instanceof JobFailure || error instanceof JobCancelled ? error : new JobFailure("input_unreachable", "could not download the input", { cause: error });
    this.#requests.stopAll();
    this.failed.abort(this.#failure);
    this.#notify();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Answers a tool's request for this input, on its loopback URL or another the processor routes here (tools/ready-tools.ts); bound, so it can be handed on. */
  readonly answer: InputAnswer = answerReads(this);
}

// A job's input read as its tools need it (docs/architecture.md, "How the processor reads an
// input"): a sparse local copy filled from the origin by byte ranges, on demand, through
// fetch-input.ts (every request under its rules), or by one download from the start when
// the origin ignores ranges; served to ffmpeg and ffprobe with Range on a loopback URL only
// this job knows. No byte is fetched twice while the origin answers ranges.
import { randomBytes } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { JobCancelled, JobFailure } from "./errors.ts";
import { formatBytes, InputOrigin, type FetchInputOptions, type OriginAnswer } from "./fetch-input.ts";
import type { ProcessorInput } from "./processors/types.ts";
import type { InputAnswer } from "./tools/ready-tools.ts";
import { INPUT_READING_DEFAULTS, type Config } from "./config.ts";
import { loopbackPeerUidAsync } from "./peer.ts";

/** How an input is opened: the fetch's rules, and the uid of the attempt's tools (isolation.ts), the only one whose connections the loopback URL answers. */
export type InputSourceOptions = FetchInputOptions & { toolUid?: number };

/** The window sizes (container/src/config.ts INPUT_*_BYTES, which says what each is for); tests and scripts that pass bare fetch limits get the defaults. */
type Reading = Pick<Config, "INPUT_FIRST_READ_BYTES" | "INPUT_MIN_WINDOW_BYTES" | "INPUT_MAX_WINDOW_BYTES" | "INPUT_NEAR_BYTES" | "INPUT_TAIL_READ_BYTES">;

/** The first request's range by default: INPUT_FIRST_READ_BYTES. */
export const FIRST_READ_BYTES = INPUT_READING_DEFAULTS.INPUT_FIRST_READ_BYTES;
/** Largest piece read from the local copy and written to a reader at once. */
const SERVE_BYTES = 1024 * 1024;
/**
 * Bytes received and not yet on disk at most. Readers take such bytes from memory, so a
 * tool waiting on the origin is not also waiting on the local copy's writes; past this the
 * origin is read no faster than the disk takes it.
 */
const MAX_UNWRITTEN_BYTES = 4 * 1024 * 1024;

/** Byte ranges [start, end), sorted and merged. */
export class Ranges {
  readonly #list: [number, number][] = [];

  add(start: number, end: number): void {
    if (end <= start) return;
    const list = this.#list;
    let i = 0;
    while (i < list.length && list[i]![1] < start) i++;
    let j = i;
    while (j < list.length && list[j]![0] <= end) {
      start = Math.min(start, list[j]![0]);
      end = Math.max(end, list[j]![1]);
      j++;
    }
    list.splice(i, j - i, [start, end]);
  }

  /** The end of the run holding `pos`, or `pos` when it is not held. */
  runEnd(pos: number): number {
    const run = this.#list.find(([s, e]) => s <= pos && pos < e);
    return run ? run[1] : pos;
  }

  /** The start of the first run at or after `pos` (Infinity when none). */
  nextStart(pos: number): number {
    return this.#list.find(([s, e]) => e > pos && s >= pos)?.[0] ?? Infinity;
  }

  /** The first byte before `size` not held, or null when all are. */
  firstGap(size: number): number | null {
    const first = this.#list[0];
    if (!first || first[0] > 0) return size > 0 ? 0 : null;
    return first[1] < size ? first[1] : null;
  }

  get bytes(): number {
    return this.#list.reduce((sum, [s, e]) => sum + e - s, 0);
  }

  clear(): void {
    this.#list.length = 0;
  }
}

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

interface Fetch {
  /** Next byte this request writes; it stops at `end`, which a later request may pull in. */
  pos: number;
  end: number;
  done: Promise<void>;
  stop: AbortController;
}

type Validator = { etag?: string; lastModified?: string };

/** Bytes received whose write to the local copy has not landed. */
interface Unwritten {
  start: number;
  bytes: Buffer;
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
  #mode: "ranges" | "whole" = "ranges";
  readonly #filled = new Ranges();
  #fetches: Fetch[] = [];
  /** Received, held in #filled, on their way to disk, in the order received: served from here until written. */
  #unwritten: Unwritten[] = [];
  #unwrittenBytes = 0;
  /** The one write loop under way (#writeAll), if any. */
  #writing?: Promise<void>;
  #waiters: (() => void)[] = [];
  #failure?: Error;
  #whole?: Promise<void>;
  #file!: FileHandle;
  #server?: http.Server;
  #url = "";
  readonly #origin: InputOrigin;
  readonly #options: FetchInputOptions;
  /** Transfer time left: INPUT_TOTAL_TIMEOUT_MS counted over every request (time waiting on the tools does not count). */
  #budgetMs: number;
  #validator: Validator = {};
  readonly #reading: Reading;
  #closed = false;
  #toolUid?: number;
  /** The first range answer stated the input's size: readers rely on it from then on. */
  #sizeStated = false;
  readonly stats: InputReadStats = { mode: "ranges", fetchedBytes: 0, requests: 0, toolReads: 0 };
  /** Fired when the input fails: the job's tools stop, and the job reports this failure. */
  readonly failed = new AbortController();

  private constructor(rawUrl: string, path: string, options: FetchInputOptions) {
    this.path = path;
    this.#options = options;
    this.#budgetMs = options.limits.INPUT_TOTAL_TIMEOUT_MS;
    this.#reading = { ...INPUT_READING_DEFAULTS, ...definedOnly(options.limits) };
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
    source.#toolUid = options.toolUid;
    try {
      source.#file = await open(path, "w+");
      await source.#first();
      await source.#listen();
      return source;
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  /** The loopback URL tools open: a random path on a random port, for this job only. */
  get url(): string {
    return this.#url;
  }

  /** What the ffmpeg family opens: the local copy once complete, else the loopback URL (seekable, filled as read). */
  get source(): string {
    return this.complete ? this.path : this.#url;
  }

  get complete(): boolean {
    return this.#filled.firstGap(this.size) === null && this.#unwritten.length === 0 && !this.#failure;
  }

  get mode(): "ranges" | "whole" {
    return this.#mode;
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
    this.#whole ??= this.#mode === "whole" ? Promise.resolve() : this.#fillGaps();
  }

  /** Bytes [start, start + length) of the input (fewer at its end), fetched if they are not here yet. */
  async read(start: number, length: number): Promise<Buffer> {
    const end = Math.min(this.size, start + length);
    const buffer = Buffer.alloc(Math.max(0, end - start));
    let pos = start;
    let window = this.#reading.INPUT_MIN_WINDOW_BYTES;
    while (pos < end) {
      window = await this.#ensure(pos, window);
      const until = Math.min(end, this.#filled.runEnd(pos));
      if (until <= pos) throw this.#failure ?? new JobFailure("input_unreachable", "the input ended before the bytes a tool asked for; send it again");
      const bytes = await this.#bytesAt(pos, until);
      if (bytes.length === 0) throw this.#failure ?? new JobFailure("input_unreachable", "the input's local copy ended early; send it again");
      bytes.copy(buffer, pos - start);
      pos += bytes.length;
    }
    return buffer;
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
    for (const f of this.#fetches) f.stop.abort();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    this.#origin.close();
    await Promise.allSettled(this.#fetches.map((f) => f.done));
    await this.#writesLanded();
    await this.#file?.close().catch(() => undefined);
    this.#notify();
  }

  async #first(): Promise<void> {
    const first = this.#reading.INPUT_FIRST_READ_BYTES;
    const answer = await this.#get(`bytes=0-${first - 1}`);
    const range = answer.status === 206 ? this.#checkedRange(answer, 0, first) : null;
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
    this.#validator = validatorOf(answer);
    const fetch = this.#track(0, range.end);
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
  async #askForTailIndex(first: Fetch): Promise<void> {
    const seen = Math.min(first.end, MP4_BOXES_SEEN_BYTES);
    while (this.#filled.runEnd(0) < seen && this.#fetches.includes(first) && !this.#failure) await this.#changed();
    const here = this.#filled.runEnd(0);
    if (this.#failure || here === 0 || here >= this.size) return;
    const head = await this.read(0, Math.min(here, MP4_BOXES_SEEN_BYTES));
    const tail = mp4IndexAfterMedia(head, here, this.size);
    // An index inside the first range comes with it (a short file read whole).
    if (tail === null || tail < first.end) return;
    this.#fetchRange(tail, Math.min(this.size, tail + this.#reading.INPUT_TAIL_READ_BYTES));
  }

  /** A range answer's range when it is the one asked for, from `start`, and consistent (its Content-Length, the input's size); else null. */
  #checkedRange(answer: OriginAnswer, start: number, end: number): { end: number; total: number } | null {
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(answer.response.headers["content-range"] ?? "").trim());
    if (!match) return null;
    const [first, last, total] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const expectedLast = Math.min(end, total) - 1;
    if (first !== start || last !== expectedLast) return null;
    if (this.size > 0 && total !== this.size) return null;
    const declared = answer.response.headers["content-length"];
    if (declared !== undefined && Number(declared) !== last - first + 1) return null;
    return { end: last + 1, total };
  }

  /** One download of the whole input from the start, into the local copy; the size waits for it only when the origin does not state it. */
  async #startWhole(answer?: OriginAnswer): Promise<void> {
    // Past the first answer the input's size is known, and readers are waiting on it: it never changes.
    const sized = this.#sizeStated ? this.size : undefined;
    this.#mode = this.stats.mode = "whole";
    this.#filled.clear();
    for (const f of this.#fetches) f.stop.abort();
    // A range's write landing after the download's own write of those bytes would undo it.
    await this.#writesLanded();
    const response = answer ?? (await this.#get(undefined));
    const declared = Number(response.response.headers["content-length"]);
    const known = Number.isFinite(declared) && response.response.headers["content-length"] !== undefined;
    const changed = sized !== undefined && (!known || declared !== sized || this.#changedSince(response) !== undefined);
    if (changed) {
      response.response.destroy();
      throw new JobFailure("input_unreachable", `the input changed while it was read (it was ${sized} bytes, now ${known ? `${declared} bytes` : "of no stated length"}); send it again once it no longer changes`);
    }
    if (known) this.size = declared;
    const fetch = this.#track(0, known ? declared : Infinity);
    fetch.done = this.#receive(response, fetch, { whole: true });
    this.#whole = fetch.done;
    if (!known) {
      await fetch.done;
      this.size = this.#filled.runEnd(0);
      this.#throwIfFailed();
    }
  }

  #track(start: number, end: number): Fetch {
    const fetch: Fetch = { pos: start, end, done: Promise.resolve(), stop: new AbortController() };
    this.#fetches.push(fetch);
    return fetch;
  }

  /** A GET under the transfer-time budget; its time is taken from the budget when its body has been read. */
  async #get(range: string | undefined, stop?: AbortSignal): Promise<OriginAnswer & { spent: () => void }> {
    if (this.#closed) throw this.#failure ?? new JobCancelled();
    if (this.#budgetMs <= 0) throw new JobFailure("input_unreachable", `downloading the input took longer than the limit of ${Math.round(this.#options.limits.INPUT_TOTAL_TIMEOUT_MS / 100) / 10} s`);
    const started = Date.now();
    const signal = AbortSignal.any([this.#options.signal, AbortSignal.timeout(this.#budgetMs), ...(stop ? [stop] : [])]);
    this.stats.requests++;
    const answer = await this.#origin.get(range, signal);
    let spent = false;
    return { ...answer, spent: () => !spent && ((spent = true), (this.#budgetMs -= Date.now() - started)) };
  }

  /**
   * Writes an answer's body into the local copy from `fetch.pos`, marking each piece as
   * there when written, until its end (which a later request may have pulled in: then this
   * one stops). Whatever fails becomes the input's failure.
   */
  async #receive(answer: OriginAnswer & { spent?: () => void }, fetch: Fetch, options: { whole?: boolean } = {}): Promise<void> {
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
            this.#keep(chunk.subarray(0, take), fetch.pos);
            this.#filled.add(fetch.pos, fetch.pos + take);
            fetch.pos += take;
            this.#notify();
            while (this.#unwrittenBytes > MAX_UNWRITTEN_BYTES && !this.#failure) await this.#changed();
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
      this.#fetches = this.#fetches.filter((f) => f !== fetch);
      this.#notify();
    }
  }

  /** Queues received bytes for the local copy; until they are written, readers take them from memory (#bytesAt). */
  #keep(bytes: Buffer, start: number): void {
    this.#unwritten.push({ start, bytes });
    this.#unwrittenBytes += bytes.length;
    this.#writing ??= this.#writeAll().finally(() => (this.#writing = undefined));
  }

  /**
   * Writes what waits, one write at a time for the input (pieces that continue one another
   * go in one writev), so an input's writes never fill the thread pool that DNS lookups and
   * sharp share. A short or failed write fails the input: nothing is served from a copy
   * whose bytes may not be there.
   */
  async #writeAll(): Promise<void> {
    while (this.#unwritten.length > 0) {
      const batch = [this.#unwritten[0]!];
      for (let next = this.#unwritten[batch.length]; next && next.start === batch.at(-1)!.start + batch.at(-1)!.bytes.length; next = this.#unwritten[batch.length]) batch.push(next);
      const length = batch.reduce((sum, p) => sum + p.bytes.length, 0);
      try {
        const { bytesWritten } = await this.#file.writev(batch.map((p) => p.bytes), batch[0]!.start);
        if (bytesWritten !== length) throw new Error(`wrote ${bytesWritten} of ${length} bytes`);
      } catch (error) {
        this.#fail(new JobFailure("processing_failed", "the processor could not store the input on its disk (it may be full)", { cause: error }));
        this.#unwritten = [];
        this.#unwrittenBytes = 0;
        break;
      }
      this.#unwritten.splice(0, batch.length);
      this.#unwrittenBytes -= length;
      // Readers waiting for room, and file(), which counts the copy complete only once written.
      this.#notify();
    }
  }

  async #writesLanded(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /**
   * Bytes from `pos`, up to `end` (both within what #filled holds): from a piece still on its
   * way to disk, or read from the local copy (a piece leaves memory only once written).
   */
  async #bytesAt(pos: number, end: number): Promise<Buffer> {
    const piece = this.#unwritten.find((p) => p.start <= pos && pos < p.start + p.bytes.length);
    if (piece) return piece.bytes.subarray(pos - piece.start, Math.min(end, piece.start + piece.bytes.length) - piece.start);
    const until = Math.min(end, ...this.#unwritten.filter((p) => p.start > pos).map((p) => p.start));
    const buffer = Buffer.allocUnsafe(until - pos);
    const { bytesRead } = await this.#file.read(buffer, 0, buffer.length, pos);
    return buffer.subarray(0, bytesRead);
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
      const here = this.#filled.runEnd(pos);
      if (here > pos) {
        // A tool reading on: its next range is asked for while it reads the second half of this one, so it does not wait for each.
        const next = here < this.size && here - pos < window / 2 && !this.#fetches.some((f) => f.pos <= here && here < f.end);
        if (readAhead && next && this.#mode === "ranges") {
          this.#fetchRange(here, here + window);
          window = Math.min(this.#reading.INPUT_MAX_WINDOW_BYTES, window * 2);
        }
        return window;
      }
      const coming = this.#fetches.find((f) => f.pos <= pos && pos < f.end && (this.#mode === "whole" || pos - f.pos <= this.#reading.INPUT_NEAR_BYTES));
      if (!coming && this.#mode === "ranges") {
        this.#fetchRange(pos, pos + window);
        window = Math.min(this.#reading.INPUT_MAX_WINDOW_BYTES, window * 2);
      }
      await this.#changed();
    }
  }

  /** Asks the origin for [start, end), cut short at the next byte here or already asked for; a request further back that would reach `start` later stops there. */
  #fetchRange(start: number, end: number): Fetch {
    const limit = Math.min(end, this.size, this.#filled.nextStart(start), ...this.#fetches.filter((f) => f.pos > start).map((f) => f.pos));
    // Nothing to ask for (the bytes are here or coming): never an empty range, which no origin answers as one.
    if (limit <= start) return { pos: start, end: start, done: Promise.resolve(), stop: new AbortController() };
    for (const f of this.#fetches) if (f.pos <= start && start < f.end) f.end = start;
    const fetch = this.#track(start, limit);
    fetch.done = (async () => {
      let answer;
      try {
        answer = await this.#get(`bytes=${start}-${limit - 1}`, fetch.stop.signal);
      } catch (error) {
        this.#fetches = this.#fetches.filter((f) => f !== fetch);
        if (!fetch.stop.signal.aborted) this.#fail(error);
        return;
      }
      const changed = this.#changedSince(answer);
      if (answer.status !== 206 || !this.#checkedRange(answer, start, limit) || changed) {
        answer.response.destroy();
        answer.spent();
        this.#fetches = this.#fetches.filter((f) => f !== fetch);
        if (changed) return this.#fail(new JobFailure("input_unreachable", `the input changed while it was read (${changed}); send it again once it no longer changes`));
        // A range answer that does not add up: read the input from the start instead, as a plain download.
        if (this.#mode === "ranges") await this.#startWhole().catch((error: unknown) => this.#fail(error));
        return;
      }
      await this.#receive(answer, fetch);
    })();
    return fetch;
  }

  /** Fills every gap in order, one request per gap (a gap's request stops where a reader's request begins). */
  async #fillGaps(): Promise<void> {
    for (;;) {
      if (this.#failure || this.#mode === "whole") return;
      const gap = this.#filled.firstGap(this.size);
      if (gap === null) return;
      const coming = this.#fetches.find((f) => f.pos <= gap && gap < f.end);
      await (coming ?? this.#fetchRange(gap, this.size)).done;
      if (coming) continue;
    }
  }

  /** How a range answer says the input is not the one first read (its ETag or Last-Modified differ), or undefined. */
  #changedSince(answer: OriginAnswer): string | undefined {
    const now = validatorOf(answer);
    if (this.#validator.etag && now.etag && now.etag !== this.#validator.etag) return `its ETag was ${this.#validator.etag}, now ${now.etag}`;
    if (this.#validator.lastModified && now.lastModified && now.lastModified !== this.#validator.lastModified) return `last modified ${this.#validator.lastModified}, now ${now.lastModified}`;
    return undefined;
  }

  #fail(error: unknown): void {
    if (this.#failure) return;
    this.#failure = error instanceof JobFailure || error instanceof JobCancelled ? error : new JobFailure("input_unreachable", "could not download the input", { cause: error });
    for (const f of this.#fetches) f.stop.abort();
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

  async #listen(): Promise<void> {
    // A random token, then the local copy's path: a tool's command line names its job's
    // directory, as with a local file (what `ps`, and the tests' leftover checks, look for).
    const path = `/${randomBytes(24).toString("base64url")}${encodeURI(this.path)}`;
    // The URL is in the tool's command line, which any process may read in /proc: only the
    // attempt's own tools (its uid) are answered; another's connection is closed unanswered.
    const uid = this.#toolUid;
    const peers = new WeakMap<Socket, Promise<number | undefined>>();
    const ours = (socket: Socket) => {
      if (uid === undefined) return true;
      let peer = peers.get(socket);
      if (!peer) peers.set(socket, (peer = loopbackPeerUidAsync(socket)));
      return peer.then((found) => found === uid);
    };
    const server = http.createServer(async (req, res) => {
      if (!(await ours(req.socket))) return void req.socket.destroy();
      if (req.url === path) this.answer(req, res);
      else res.writeHead(404).end();
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  }

  /** Answers a tool's request for this input, on its loopback URL or another the processor routes here (tools/ready-tools.ts); bound, so it can be handed on. */
  readonly answer: InputAnswer = (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(404).end();
    void this.#serve(req, res);
  };

  /** One tool's read: 206 for a range (what ffmpeg's http asks for: `bytes=N-`), 200 for the whole; the bytes as they arrive. */
  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const range = requestedRange(req.headers.range, this.size);
    if (range === "unsatisfiable") return void res.writeHead(416, { "content-range": `bytes */${this.size}` }).end();
    const { start, end } = range ?? { start: 0, end: this.size };
    res.writeHead(range ? 206 : 200, {
      "accept-ranges": "bytes",
      "content-type": "application/octet-stream",
      "content-length": String(end - start),
      ...(range ? { "content-range": `bytes ${start}-${end - 1}/${this.size}` } : {}),
    });
    if (req.method === "HEAD") return void res.end();
    this.stats.toolReads++;
    let closed = false;
    res.once("close", () => (closed = true));
    let pos = start;
    let window = this.#reading.INPUT_MIN_WINDOW_BYTES;
    try {
      while (pos < end && !closed) {
        window = await this.#ensure(pos, window, true);
        const until = Math.min(end, this.#filled.runEnd(pos), pos + SERVE_BYTES);
        // No progress possible (the input ended short of what was asked): cut the tool's connection, never spin.
        if (until <= pos) throw this.#failure ?? new Error("no bytes at the position asked for");
        const bytes = await this.#bytesAt(pos, until);
        if (bytes.length === 0) throw new Error("the local copy ended early");
        pos += bytes.length;
        if (!res.write(bytes) && !closed) await drained(res);
      }
      res.end();
    } catch {
      // The input failed (the job reports it) or was closed: the tool sees a cut connection.
      res.destroy();
    }
  }
}

/** The reading's settings among `limits`, those set (a config has all of them; bare fetch limits none). */
function definedOnly(limits: Partial<Reading>): Partial<Reading> {
  return Object.fromEntries(Object.keys(INPUT_READING_DEFAULTS).flatMap((key) => (limits[key as keyof Reading] === undefined ? [] : [[key, limits[key as keyof Reading]]])));
}

/** Resolves when `res` can take more, or has closed. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/**
 * What tells one version of the input from another: its ETag, weak ones included (a weak
 * ETag that changes says the content changed; one that stays the same is taken as the same
 * content, as a cache would), and its Last-Modified.
 */
function validatorOf(answer: OriginAnswer): Validator {
  const etag = answer.response.headers.etag;
  const lastModified = answer.response.headers["last-modified"];
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** How much of the first range is looked at for an MP4's top-level boxes before the index is asked for (ftyp, free, wide: a few dozen bytes before the mdat). */
const MP4_BOXES_SEEN_BYTES = 64 * 1024;

/** Top-level boxes an MP4 or MOV may start with; anything else is not walked. */
const MP4_LEADING_BOXES = new Set(["ftyp", "wide", "free", "skip", "mdat", "pnot", "uuid"]);

/**
 * Where an MP4's or MOV's index starts when its first `here` bytes (of `size`) show it after
 * the media data: the top-level boxes walked from the start, the first that runs past
 * `here` an mdat ending before `size`, no moov before it. Null otherwise (the index is at
 * the start, the file is not an MP4, an mdat runs to the end, or a box does not add up).
 */
export function mp4IndexAfterMedia(head: Buffer, here: number, size: number): number | null {
  let pos = 0;
  for (let boxes = 0; boxes < 32 && pos + 8 <= head.length; boxes++) {
    const type = head.toString("latin1", pos + 4, pos + 8);
    if (type === "moov" || (boxes === 0 && !MP4_LEADING_BOXES.has(type))) return null;
    let length = head.readUInt32BE(pos);
    if (length === 1) {
      if (pos + 16 > head.length) return null;
      length = Number(head.readBigUInt64BE(pos + 8));
    }
    // 0: the box runs to the end of the file; under 8: not a box.
    if (length < 8) return null;
    const end = pos + length;
    if (end > here) return type === "mdat" && end < size ? end : null;
    pos = end;
  }
  return null;
}

/** A single `bytes=` range of an input of `size` bytes as [start, end); undefined for none (or one ignored, as RFC 9110 §14.2 allows). */
export function requestedRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  if (match[1] === "") {
    const length = Number(match[2]);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size };
  }
  const start = Number(match[1]);
  if (match[2] !== "" && Number(match[2]) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { start, end: match[2] === "" ? size : Math.min(Number(match[2]) + 1, size) };
}

/** A complete local file as a job's input: for scripts and benches that run a processor on a file already here. */
export function localInput(path: string, size: number): ProcessorInput {
  return {
    path,
    size,
    source: path,
    file: async () => path,
    fillAll: () => {},
    head: (bytes) => readHead(path, bytes),
  };
}

/** A local file's first `bytes` bytes (fewer when it is shorter). */
export async function readHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

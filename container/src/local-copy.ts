// An input's local copy, filled out of order as its byte ranges arrive (input-source.ts):
// which bytes are here, those received and not yet on disk kept in memory and read from
// there, and the writes, one at a time for the input.
import { open, type FileHandle } from "node:fs/promises";
import { Ranges } from "./byte-ranges.ts";
import { JobFailure } from "./errors.ts";

/**
 * Bytes received and not yet on disk at most. Readers take such bytes from memory, so a
 * tool waiting on the origin is not also waiting on the local copy's writes; past this the
 * origin is read no faster than the disk takes it.
 */
const MAX_UNWRITTEN_BYTES = 4 * 1024 * 1024;

/** Bytes received whose write to the local copy has not landed. */
interface Unwritten {
  start: number;
  bytes: Buffer;
}

/** What the copy tells its input: a write landed, or writing failed (the input fails). */
export interface CopyEvents {
  written(): void;
  failed(failure: JobFailure): void;
}

export class LocalCopy {
  /** The bytes here: on disk, or received and on their way there. */
  readonly held = new Ranges();
  /** Received, held, on their way to disk, in the order received: served from here until written. */
  #unwritten: Unwritten[] = [];
  #unwrittenBytes = 0;
  /** The one write loop under way (#writeAll), if any. */
  #writing?: Promise<void>;
  readonly #file: FileHandle;
  readonly #events: CopyEvents;

  private constructor(file: FileHandle, events: CopyEvents) {
    this.#file = file;
    this.#events = events;
  }

  /** Creates (or empties) the file at `path` for the copy. */
  static async open(path: string, events: CopyEvents): Promise<LocalCopy> {
    return new LocalCopy(await open(path, "w+"), events);
  }

  /** Every byte held is on disk. */
  get written(): boolean {
    return this.#unwritten.length === 0;
  }

  /** More than MAX_UNWRITTEN_BYTES wait for the disk: the origin is read no further until they land. */
  get full(): boolean {
    return this.#unwrittenBytes > MAX_UNWRITTEN_BYTES;
  }

  /** Received bytes at `start`: held at once, read from memory until written. */
  keep(bytes: Buffer, start: number): void {
    this.#unwritten.push({ start, bytes });
    this.#unwrittenBytes += bytes.length;
    this.held.add(start, start + bytes.length);
    this.#writing ??= this.#writeAll().finally(() => (this.#writing = undefined));
  }

  /**
   * Bytes from `pos`, up to `end` (both within what `held` holds): from a piece still on its
   * way to disk, or read from the file (a piece leaves memory only once written).
   */
  async bytesAt(pos: number, end: number): Promise<Buffer> {
    const piece = this.#unwritten.find((p) => p.start <= pos && pos < p.start + p.bytes.length);
    if (piece) return piece.bytes.subarray(pos - piece.start, Math.min(end, piece.start + piece.bytes.length) - piece.start);
    const until = Math.min(end, ...this.#unwritten.filter((p) => p.start > pos).map((p) => p.start));
    const buffer = Buffer.allocUnsafe(until - pos);
    const { bytesRead } = await this.#file.read(buffer, 0, buffer.length, pos);
    return buffer.subarray(0, bytesRead);
  }

  /** Resolves once no write is under way. */
  async landed(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** Closes the file once the writes under way have landed. */
  async close(): Promise<void> {
    await this.landed();
    await this.#file.close().catch(() => undefined);
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
        this.#events.failed(new JobFailure("processing_failed", "the processor could not store the input on its disk (it may be full)", { cause: error }));
        this.#unwritten = [];
        this.#unwrittenBytes = 0;
        break;
      }
      this.#unwritten.splice(0, batch.length);
      this.#unwrittenBytes -= length;
      // Readers waiting for room, and file(), which counts the copy complete only once written.
      this.#events.written();
    }
  }
}

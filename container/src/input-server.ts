// How a job's tools' reads of its input are answered, on its route of the tool relay
// (tool-relay.ts, which lets only the attempt's own tools through): each read by range (206)
// or whole (200), its bytes sent as they arrive; a range in parts that grow while the tool
// reads on (ReadPacing).
import type http from "node:http";
import { requestedRange } from "../../src/net/range-header.ts";
import type { InputAnswer } from "./tool-relay.ts";

/** Largest piece read from the local copy and written to a reader at once. */
const SERVE_BYTES = 1024 * 1024;

/** What a tool's read is served from (InputSource). */
export interface ServedInput {
  readonly size: number;
  readonly stats: { toolReads: number };
  /** Each call gives the next bytes from `pos` toward `end` (exclusive), fetched as needed; with `readAhead`, the next window is asked for early. */
  reader(readAhead: boolean): (pos: number, end: number) => Promise<Buffer>;
  /** Asks the origin for the bytes of [start, end) not here or coming, in one request, without waiting. */
  prefetch(start: number, end: number): void;
}

/** The request handler for tools' reads of `input`, on its loopback URL or another the processor routes to it (tools/ready-tools.ts). */
export function answerReads(input: ServedInput): InputAnswer {
  const pacing = new ReadPacing();
  return (req, res) => void serve(input, req, res, pacing);
}

/** The first part of a range a read is answered with, and the part past which a read is answered whole (ReadPacing). */
export const FIRST_PART_BYTES = 512 * 1024;
export const WHOLE_PART_BYTES = 64 * 1024 * 1024;

/**
 * How much of a range a tool asked for is sent in one answer. ffmpeg's http asks for
 * everything from where it reads (`bytes=N-`) and closes the connection when it seeks or is
 * done; what was sent by then is in the sockets' buffers, megabytes on loopback, all of it
 * fetched from the origin and copied for nothing (a thumbnail at 60 s of a 12-minute 1080p
 * phone video: 20 MB sent and 18 MB fetched, to read 5). So a range is answered in parts:
 * FIRST_PART_BYTES, then, when the tool asks again where the last part ended (ffmpeg's
 * `-reconnect`, tools/ffprobe.ts LOOPBACK_RECONNECT, continues a range that ended early at
 * once), twice that, up to WHOLE_PART_BYTES, past which the rest is sent in one answer. A
 * tool reading the whole input asks eight times more; one that seeks wastes at most its
 * last part. (RFC 9110 §14.4: a 206's Content-Range says which part is sent.)
 */
export class ReadPacing {
  /** Where recent parts ended (the next byte), with their length. */
  readonly #ends = new Map<number, number>();

  /** The most an answer from `start` sends. */
  next(start: number): number {
    const last = this.#ends.get(start);
    this.#ends.delete(start);
    const length = last === undefined ? FIRST_PART_BYTES : last * 2;
    if (length > WHOLE_PART_BYTES) return Infinity;
    // A few reads at once (a probe, a grab's open and its seek): the oldest ends are forgotten.
    if (this.#ends.size >= 16) this.#ends.delete(this.#ends.keys().next().value!);
    this.#ends.set(start + length, length);
    return length;
  }
}

/** One tool's read: 206 for a range (what ffmpeg's http asks for: `bytes=N-`), 200 for the whole; the bytes as they arrive. */
async function serve(input: ServedInput, req: http.IncomingMessage, res: http.ServerResponse, pacing: ReadPacing): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(404).end();
  const range = requestedRange(req.headers.range, input.size);
  if (range === "unsatisfiable") return void res.writeHead(416, { "content-range": `bytes */${input.size}` }).end();
  const { start, end: asked } = range ?? { start: 0, end: input.size - 1 };
  // A range is sent in parts (ReadPacing), each asked for whole and nothing past it (the tool
  // may not read on); a whole answer (200) cannot be.
  const end = range && req.method === "GET" ? Math.min(asked, start + pacing.next(start) - 1) : asked;
  const part = end < asked;
  if (part) input.prefetch(start, end + 1);
  const next = input.reader(!part);
  res.writeHead(range ? 206 : 200, {
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "content-length": String(end + 1 - start),
    ...(range ? { "content-range": `bytes ${start}-${end}/${input.size}` } : {}),
    // ffmpeg's http continues a range that ended early only once the connection closes.
    ...(part ? { connection: "close" } : {}),
  });
  if (req.method === "HEAD") return void res.end();
  input.stats.toolReads++;
  let closed = false;
  res.once("close", () => (closed = true));
  try {
    for (let pos = start; pos <= end && !closed; ) {
      const bytes = await next(pos, Math.min(end + 1, pos + SERVE_BYTES));
      pos += bytes.length;
      if (!res.write(bytes) && !closed) await drained(res);
    }
    res.end();
  } catch {
    // The input failed (the job reports it) or was closed: the tool sees a cut connection.
    res.destroy();
  }
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

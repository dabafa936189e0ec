// The loopback URL a job's tools open to read its input (input-source.ts): a random path on a
// random port of 127.0.0.1, answered only for the attempt's own tools (their uid, peer.ts);
// each read answered by range (206) or whole (200), its bytes sent as they arrive; a range
// in parts that grow while the tool reads on (ReadPacing).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { requestedRange } from "../../src/net/range-header.ts";
import { loopbackPeerUidAsync } from "./peer.ts";
import type { InputAnswer } from "./tools/ready-tools.ts";

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

export interface LoopbackServer {
  url: string;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves `answer` at a URL of its own: a random token, then `localPath` (a tool's command
 * line names its job's directory, as with a local file: what `ps`, and the tests' leftover
 * checks, look for). With `toolUid`, only connections of that uid are answered.
 */
export async function listenOnLoopback(localPath: string, toolUid: number | undefined, answer: InputAnswer): Promise<LoopbackServer> {
  const path = `/${randomBytes(24).toString("base64url")}${encodeURI(localPath)}`;
  // The URL is in the tool's command line, which any process may read in /proc: only the
  // attempt's own tools (its uid) are answered; another's connection is closed unanswered.
  const peers = new WeakMap<Socket, Promise<number | undefined>>();
  const ours = (socket: Socket) => {
    if (toolUid === undefined) return true;
    let peer = peers.get(socket);
    if (!peer) peers.set(socket, (peer = loopbackPeerUidAsync(socket)));
    return peer.then((found) => found === toolUid);
  };
  const server = http.createServer(async (req, res) => {
    const allowed = ours(req.socket);
    if (req.url === path) return answer(req, res, allowed === true ? undefined : allowed);
    if (!(await allowed)) return void req.socket.destroy();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request handler for tools' reads of `input`, on its loopback URL or another the processor routes to it (tools/ready-tools.ts). */
export function answerReads(input: ServedInput): InputAnswer {
  const pacing = new ReadPacing();
  return (req, res, allowed) => void serve(input, req, res, allowed, pacing);
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

/**
 * One tool's read: 206 for a range (what ffmpeg's http asks for: `bytes=N-`), 200 for the
 * whole; the bytes as they arrive. Its first bytes are asked for while the connection's uid is
 * checked (`allowed`: a read of /proc/net/tcp, about 5 ms however few sockets there are, as
 * the kernel walks its whole table; ffmpeg opens a connection per seek), and nothing is sent
 * before the check passed. A connection of another uid thus makes the input's own copy fetch
 * at most one piece it would read anyway, and gets nothing.
 */
async function serve(input: ServedInput, req: http.IncomingMessage, res: http.ServerResponse, allowed: Promise<boolean> | undefined, pacing: ReadPacing): Promise<void> {
  const refused = async (): Promise<boolean> => {
    if (allowed === undefined || (await allowed)) return false;
    req.socket.destroy();
    return true;
  };
  if (req.method !== "GET" && req.method !== "HEAD") {
    if (!(await refused())) res.writeHead(404).end();
    return;
  }
  const range = requestedRange(req.headers.range, input.size);
  if (range === "unsatisfiable") {
    if (!(await refused())) res.writeHead(416, { "content-range": `bytes */${input.size}` }).end();
    return;
  }
  const { start, end: asked } = range ?? { start: 0, end: input.size - 1 };
  // A range is sent in parts (ReadPacing), each asked for whole and nothing past it (the tool
  // may not read on); a whole answer (200) cannot be.
  const end = range && req.method === "GET" ? Math.min(asked, start + pacing.next(start) - 1) : asked;
  const part = end < asked;
  if (part) input.prefetch(start, end + 1);
  const next = input.reader(!part);
  const first = req.method === "GET" && start <= end ? next(start, Math.min(end + 1, start + SERVE_BYTES)) : undefined;
  // Not awaited when the connection is refused; its failure is the loop's below.
  first?.catch(() => undefined);
  if (await refused()) return;
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
    for (let pos = start, pending = first; pos <= end && !closed; pending = undefined) {
      const bytes = await (pending ?? next(pos, Math.min(end + 1, pos + SERVE_BYTES)));
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

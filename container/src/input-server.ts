// The loopback URL a job's tools open to read its input (input-source.ts): a random path on a
// random port of 127.0.0.1, answered only for the attempt's own tools (their uid, peer.ts);
// each read answered by range (206) or whole (200), its bytes sent as they arrive.
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
  return (req, res, allowed) => void serve(input, req, res, allowed);
}

/**
 * One tool's read: 206 for a range (what ffmpeg's http asks for: `bytes=N-`), 200 for the
 * whole; the bytes as they arrive. Its first bytes are asked for while the connection's uid is
 * checked (`allowed`: a read of /proc/net/tcp, about 5 ms however few sockets there are, as
 * the kernel walks its whole table; ffmpeg opens a connection per seek), and nothing is sent
 * before the check passed. A connection of another uid thus makes the input's own copy fetch
 * at most one piece it would read anyway, and gets nothing.
 */
async function serve(input: ServedInput, req: http.IncomingMessage, res: http.ServerResponse, allowed?: Promise<boolean>): Promise<void> {
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
  const { start, end } = range ?? { start: 0, end: input.size - 1 };
  const next = input.reader(true);
  const first = req.method === "GET" && start <= end ? next(start, Math.min(end + 1, start + SERVE_BYTES)) : undefined;
  // Not awaited when the connection is refused; its failure is the loop's below.
  first?.catch(() => undefined);
  if (await refused()) return;
  res.writeHead(range ? 206 : 200, {
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "content-length": String(end + 1 - start),
    ...(range ? { "content-range": `bytes ${start}-${end}/${input.size}` } : {}),
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

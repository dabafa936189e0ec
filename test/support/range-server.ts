// An input origin that counts what it serves (bytes, requests, the ranges asked for), for
// the processor's tests and the bench: honest with Range, or one of the ways origins are
// not (ignoring Range, a Content-Length that lies, stalling, redirecting mid-read).
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How a file is served. `ranges`: 206 with Content-Range for a range, 200 for the whole.
 * `ignore-range`: always 200, the whole file. `lying-length`: ranges answered with the
 * whole file's Content-Length (then the connection closed), the whole file honestly.
 * `stall`: the first `after` requests served as `ranges`; each later answer stops after
 * `stallAfter` bytes, sending nothing more (the connection stays open).
 * `redirect`: the first `after` requests served as `ranges`, every later one redirected to `location`.
 * `stall-past`: as `ranges`, but an answer from byte `offset` on sends its headers and nothing more.
 */
export type Behaviour =
  | { kind: "ranges" }
  | { kind: "ignore-range" }
  | { kind: "lying-length" }
  | { kind: "stall"; after: number; stallAfter: number }
  | { kind: "redirect"; after: number; location: string }
  | { kind: "stall-past"; offset: number };

export interface ServedRequest {
  path: string;
  range?: string;
  /** Bytes of body written for this request. */
  bytes: number;
  authorization?: string;
}

export interface RangeServer {
  /** Serves the file at `file` under `path` with `behaviour`; returns its URL. */
  serve(path: string, file: string, behaviour?: Behaviour): string;
  /** Every request so far, in order. */
  readonly requests: ServedRequest[];
  /** Body bytes written so far (to every request). */
  readonly bytesServed: number;
  reset(): void;
  port: number;
  close(): Promise<void>;
  server: Server;
}

export async function startRangeServer(host = "127.0.0.1"): Promise<RangeServer> {
  const files = new Map<string, { file: string; behaviour: Behaviour }>();
  const requests: ServedRequest[] = [];
  let bytesServed = 0;
  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0]!;
    const entry = files.get(path);
    const served: ServedRequest = { path, range: req.headers.range, bytes: 0, authorization: req.headers.authorization };
    requests.push(served);
    if (!entry) return void res.writeHead(404).end("not found");
    const { file, behaviour } = entry;
    if (behaviour.kind === "redirect" && requests.filter((r) => r.path === path).length > behaviour.after) {
      return void res.writeHead(302, { location: behaviour.location }).end();
    }
    const earlier = requests.filter((r) => r.path === path).length - 1;
    const stalls = behaviour.kind === "stall" && earlier >= behaviour.after;
    const size = (await stat(file)).size;
    const asked = behaviour.kind === "ignore-range" ? undefined : parseRange(req.headers.range, size);
    if (asked === "unsatisfiable") return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
    const [start, end] = asked ?? [0, size];
    if (behaviour.kind === "stall-past" && start >= behaviour.offset) {
      res.writeHead(206, { "content-type": "video/mp4", "content-length": end - start, "content-range": `bytes ${start}-${end - 1}/${size}`, etag: `"${size}"` });
      return;
    }
    const headers: Record<string, string | number> = { "content-type": "video/mp4", "accept-ranges": "bytes", "content-length": end - start, etag: `"${size}"` };
    if (asked) headers["content-range"] = `bytes ${start}-${end - 1}/${size}`;
    if (asked && behaviour.kind === "lying-length") headers["content-length"] = size;
    res.writeHead(asked ? 206 : 200, headers);
    const limit = behaviour.kind === "stall" && stalls ? Math.min(end, start + behaviour.stallAfter) : end;
    if (limit <= start) return stalls ? undefined : void res.end();
    const stream = createReadStream(file, { start, end: limit - 1 });
    stream.on("data", (chunk) => {
      served.bytes += chunk.length;
      bytesServed += chunk.length;
    });
    res.once("close", () => stream.destroy());
    stream.pipe(res, { end: false });
    stream.once("end", () => {
      if (stalls) return; // sends nothing more, and keeps the connection open
      if (asked && behaviour.kind === "lying-length") return void res.destroy();
      res.end();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    serve(path, file, behaviour = { kind: "ranges" }) {
      files.set(path, { file, behaviour });
      return `http://${host}:${port}${path}`;
    },
    requests,
    get bytesServed() {
      return bytesServed;
    },
    reset() {
      requests.length = 0;
      bytesServed = 0;
    },
    port,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One `bytes=` range as [start, end); undefined for none or several. */
export function parseRange(header: string | undefined, size: number): [number, number] | "unsatisfiable" | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  if (match[1] === "") return size === 0 || Number(match[2]) === 0 ? "unsatisfiable" : [Math.max(0, size - Number(match[2])), size];
  const start = Number(match[1]);
  // An end before the start makes the range invalid, and an invalid range is ignored (RFC 9110 §14.2).
  if (match[2] !== "" && Number(match[2]) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return [start, match[2] === "" ? size : Math.min(size, Number(match[2]) + 1)];
}

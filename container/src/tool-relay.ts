// The one loopback server through which tools read jobs' inputs: each input (input-source.ts)
// and each ready process (tools/ready-tools.ts) has a route on it, a random path. A route of
// an isolated attempt (isolation.ts) answers only its tools, told by a secret of their uid's
// lease: ffmpeg's http sends every request through the proxy its environment names
// (`http_proxy`, tools/spawn.ts toolEnv), which is this server, with the secret as the
// proxy password. A tool's environment is readable only by its own uid (and root), while its
// command line, with the route's URL, is readable by any process: the path alone proves
// nothing. The relay is no proxy to anywhere else: a request for any other path is refused.
//
// What this replaced: each connection's uid read from /proc/net/tcp, which costs 4 ms of CPU
// however few sockets are listed (the kernel walks its whole table), and a thumbnail opens a
// dozen connections (docs/architecture.md, "How the processor reads an input").
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { log } from "./log.ts";

/** Answers a tool's request on a route (an input's reads: input-server.ts answerReads). */
export type InputAnswer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface RelayRoute {
  /** What the tool opens: http://127.0.0.1:<port>/<random path><name>. */
  readonly url: string;
  /** Stops answering: every connection that asked for this route is cut. */
  close(): void;
}

/** The realm a tool is asked to prove itself in (RFC 9110 §11.7.1). */
const REALM = "media-jobs tools";

interface Route {
  /** The secret a request must carry, when the route is an isolated attempt's. */
  secret?: Buffer;
  answer: InputAnswer;
  /** Connections that asked for it: cut when it closes. */
  sockets: Set<Socket>;
}

export class ToolRelay {
  readonly #server = http.createServer((req, res) => this.#handle(req, res));
  readonly #routes = new Map<string, Route>();
  #base = "";

  private constructor() {}

  static #shared?: Promise<ToolRelay>;

  /**
   * The relay of this Node process, listening once asked for: processors started in one
   * process (tests) share it. A failed start (no file handle left) fails the input asking, and
   * the next one tries again.
   */
  static shared(): Promise<ToolRelay> {
    return (ToolRelay.#shared ??= (async () => {
      const relay = new ToolRelay();
      await new Promise<void>((resolve, reject) => {
        relay.#server.once("error", reject).listen(0, "127.0.0.1", () => {
          relay.#server.off("error", reject);
          resolve();
        });
      });
      // A connection it could not accept (out of file handles) is that tool's failed read, not the processor's end.
      relay.#server.on("error", (error) => log("warn", "the tool relay could not accept a connection", { error: String(error) }));
      // The listening socket alone does not keep a finished processor (or a test) alive.
      relay.#server.unref();
      relay.#base = `http://127.0.0.1:${(relay.#server.address() as AddressInfo).port}`;
      ToolRelay.#listening = relay;
      return relay;
    })().catch((error: unknown) => {
      ToolRelay.#shared = undefined;
      throw error;
    }));
  }

  static #listening?: ToolRelay;

  /**
   * The `http_proxy` a tool holding `secret` is given, or undefined when the relay is not
   * listening (no input has been served yet: the tool reads none).
   */
  static proxyFor(secret: string): string | undefined {
    return ToolRelay.#listening && `http://tool:${secret}@${ToolRelay.#listening.#base.slice("http://".length)}`;
  }

  /**
   * A route answering `answer` at a random path, then `name` (a tool's command line names its
   * job's directory, as it would a local file: what `ps`, and the tests' leftover checks, look
   * for). With `secret`, only requests proving it are answered.
   */
  open(name: string, secret: string | undefined, answer: InputAnswer): RelayRoute {
    const path = `/${randomBytes(24).toString("base64url")}${encodeURI(name)}`;
    const route: Route = { answer, sockets: new Set(), ...(secret !== undefined ? { secret: Buffer.from(secret) } : {}) };
    this.#routes.set(path, route);
    return {
      url: this.#base + path,
      close: () => {
        if (this.#routes.get(path) !== route) return;
        this.#routes.delete(path);
        for (const socket of route.sockets) socket.destroy();
      },
    };
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    // Through the proxy, the request names the whole URL (RFC 9112 §3.2.2, absolute-form).
    const path = (req.url ?? "").replace(/^http:\/\/[^/]*/i, "").split("?")[0]!;
    const route = this.#routes.get(path);
    if (!route) return void res.writeHead(404, { connection: "close" }).end();
    if (route.secret) {
      const proof = provedSecret(req.headers["proxy-authorization"]);
      // ffmpeg sends its proxy password only once asked for it; from then on with each request.
      if (proof === undefined) return void res.writeHead(407, { "proxy-authenticate": `Basic realm="${REALM}"`, "content-length": "0", connection: "close" }).end();
      // Another attempt's tool, or a guess: nothing, not even a status.
      if (!sameSecret(proof, route.secret)) return void req.socket.destroy();
    }
    route.sockets.add(req.socket);
    req.socket.once("close", () => route.sockets.delete(req.socket));
    route.answer(req, res);
  }
}

/** The password of a `Proxy-Authorization: Basic …` header, or undefined when there is none. */
function provedSecret(header: string | undefined): Buffer | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  const pair = Buffer.from(match[1]!, "base64").toString("latin1");
  const colon = pair.indexOf(":");
  return colon < 0 ? undefined : Buffer.from(pair.slice(colon + 1), "latin1");
}

function sameSecret(proof: Buffer, secret: Buffer): boolean {
  return proof.length === secret.length && timingSafeEqual(proof, secret);
}

/** A lease's secret (isolation.ts): 144 random bits. */
export function newRelaySecret(): string {
  return randomBytes(18).toString("base64url");
}

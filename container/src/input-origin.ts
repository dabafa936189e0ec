// An input's origin, under the rules for fetching a user's URL (docs/security.md): the URL
// rules of src/net/url-rules.ts on the first URL and on every redirect (at most 5); every
// address a name resolves to, and the address actually connected, must be public; a size cap
// on Content-Length; connect and idle time limits. Every failure says why: the HTTP status,
// the refused address class or the limit. The only code that fetches a URL on a user's
// behalf: InputSource (input-source.ts) reads the input through it, fetchInput
// (fetch-input.ts) downloads a watermark's image.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { classifyAddress, type AddressVerdict } from "../../src/net/address-policy.ts";
import { checkPublicUrl } from "../../src/net/url-rules.ts";
import type { Config, INPUT_READING_DEFAULTS } from "./config.ts";
import { JobCancelled, JobFailure, stopped } from "./errors.ts";

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type FetchLimits = Pick<
  Config,
  | "MAX_INPUT_BYTES"
  | "INPUT_CONNECT_TIMEOUT_MS"
  | "INPUT_IDLE_TIMEOUT_MS"
  | "INPUT_TOTAL_TIMEOUT_MS"
  | "ALLOW_PRIVATE_NETWORK_INPUTS"
  | "ALLOWED_INPUT_PORTS"
>;

export interface FetchInputOptions {
  /** With the reading's window sizes (config.ts INPUT_*_BYTES) when given: InputSource's defaults otherwise. */
  limits: FetchLimits & Partial<Pick<Config, keyof typeof INPUT_READING_DEFAULTS>>;
  signal: AbortSignal;
  /** DNS resolution, replaceable in tests to point a name at any address. */
  lookup?: typeof dnsLookup;
  /** Which addresses are public; replaceable in tests to treat a local server as public. */
  addressPolicy?: (address: string) => AddressVerdict;
  /**
   * The URL is the runner's route to an uploaded input (the start's callback.input, on the
   * Worker's callback origin), not a user's, read with the attempt's `token`: any address
   * is allowed (locally the Worker is on loopback, in a container the outbound handler
   * answers), but no redirect is followed, so it cannot lead anywhere else, and the token
   * goes to that URL only.
   */
  fromRunner?: { token: string };
}

/** What one hop's timers and guards decided, so that a destroyed stream reports why. */
interface Hop {
  failure?: JobFailure;
}

export function unreachable(message: string, cause?: unknown): JobFailure {
  return new JobFailure("input_unreachable", message, { cause });
}

/** The service failed the attempt (not the input): the runner tries it again while attempts are left. */
function interrupted(message: string, cause?: unknown): JobFailure {
  return new JobFailure("processing_interrupted", `${message}; the job is tried again`, { cause });
}

export function tooLarge(limit: number, size?: number): JobFailure {
  const what = size === undefined ? "the input is larger than" : `the input is ${formatBytes(size)}, over`;
  return new JobFailure("input_too_large", `${what} the limit of ${formatBytes(limit)}`);
}

/** One 2xx answer of the origin: its response, the URL that gave it, and how to read its body with failures said as every read of the input says them. */
export interface OriginAnswer {
  response: http.IncomingMessage;
  status: number;
  url: URL;
  /** Runs `work` (reading the body), turning what fails into the input's JobFailure (or, once the job stopped, what stopped() says). */
  read<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * One input's origin, asked as often as the job needs (the whole file, or byte ranges of
 * it: input-source.ts), every request under the same rules: the URL checked, its redirects
 * followed from the first URL again and each checked, the address checked at lookup and at
 * connect, connect and idle limits. Its own keep-alive agents: a connection is reused only
 * by this input's requests, and its address was checked when it connected (and is checked
 * again on each reuse).
 */
export class InputOrigin {
  readonly #options: FetchInputOptions;
  readonly #url: URL;
  readonly #policy: (address: string) => AddressVerdict;
  readonly #lookup: LookupFunction;
  readonly #agents = { http: new http.Agent({ keepAlive: true, maxSockets: 4 }), https: new https.Agent({ keepAlive: true, maxSockets: 4 }) };

  /** Throws input_unreachable for a URL the rules refuse, before any request. */
  constructor(rawUrl: string, options: FetchInputOptions) {
    this.#options = options;
    const anyAddress = options.limits.ALLOW_PRIVATE_NETWORK_INPUTS || options.fromRunner !== undefined;
    this.#policy = anyAddress ? () => ({ allowed: true }) as const : (options.addressPolicy ?? classifyAddress);
    this.#lookup = guardedLookup(this.#policy, options.lookup ?? dnsLookup);
    this.#url = options.fromRunner ? runnerUrl(rawUrl) : checkedUrl(rawUrl, options.limits);
  }

  /**
   * A GET of the input, with `range` as its Range header when given, resolving to the first
   * 2xx answer after redirects (or a 416 to a range); `signal` bounds the request and its body. A refused
   * redirect, a non-2xx status or a network failure rejects with the input's JobFailure.
   */
  async get(range: string | undefined, signal: AbortSignal): Promise<OriginAnswer> {
    const { limits, fromRunner } = this.#options;
    let url = this.#url;
    let hop: Hop = {};
    const fail = (error: unknown): never => {
      throw this.#failure(error, { url, hop, signal });
    };
    try {
      for (let redirects = 0; ; redirects++) {
        hop = {};
        const agent = url.protocol === "https:" ? this.#agents.https : this.#agents.http;
        const response = await request(url, { lookup: this.#lookup, policy: this.#policy, limits, signal, hop, token: fromRunner?.token, range, agent });
        const status = response.statusCode ?? 0;
        if (REDIRECT_STATUSES.has(status) && response.headers.location) {
          response.destroy();
          if (fromRunner) throw unreachable(`the runner's input route answered HTTP ${status} (a redirect), which is refused`);
          if (redirects >= MAX_REDIRECTS) throw unreachable(`the input URL redirected more than ${MAX_REDIRECTS} times`);
          url = checkedUrl(resolveLocation(response.headers.location, url), limits, "redirected to a URL that is refused");
          continue;
        }
        // A range past the end (an empty input) is an answer the range reader handles.
        const unsatisfiable = status === 416 && range !== undefined;
        if ((status < 200 || status >= 300) && !unsatisfiable) {
          response.destroy();
          // The runner's route failing is the service's failure, not the input's: the attempt
          // is reported interrupted and tried again (JOB_ERRORS processing_interrupted is
          // retryable), except for an upload that is gone.
          if (fromRunner && status === 404) throw unreachable("the uploaded input no longer exists (unused uploads are removed after 24 hours); upload it again");
          if (fromRunner) throw interrupted(`the service could not read the uploaded input (its input route answered HTTP ${status})`);
          throw unreachable(`the input URL answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`);
        }
        const declared = Number(response.headers["content-length"]);
        if (status === 200 && Number.isFinite(declared) && declared > limits.MAX_INPUT_BYTES) {
          response.destroy();
          throw tooLarge(limits.MAX_INPUT_BYTES, declared);
        }
        const answerHop = hop;
        const answerUrl = url;
        return {
          response,
          status,
          url,
          read: async (work) => {
            try {
              return await work();
            } catch (error) {
              response.destroy();
              throw this.#failure(error, { url: answerUrl, hop: answerHop, signal });
            }
          },
        };
      }
    } catch (error) {
      return fail(error);
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /** What failed: the job stopped (stopped(), errors.ts), the hop's own verdict, a limit, or the network. */
  #failure(error: unknown, { url, hop, signal }: { url: URL; hop: Hop; signal: AbortSignal }): Error {
    const { limits, fromRunner } = this.#options;
    if (this.#options.signal.aborted) return stopped(this.#options.signal);
    if (hop.failure) return hop.failure;
    if (error instanceof JobFailure || error instanceof JobCancelled) return error;
    if (signal.aborted) return unreachable(`downloading the input took longer than the limit of ${seconds(limits.INPUT_TOTAL_TIMEOUT_MS)}`, error);
    if (fromRunner) return interrupted(`the service could not read the uploaded input (${describeNetworkError(error, url)})`, error);
    return unreachable(describeNetworkError(error, url), error);
  }
}

function checkedUrl(raw: string, limits: FetchLimits, context = "is refused"): URL {
  const verdict = checkPublicUrl(raw, { allowPrivate: limits.ALLOW_PRIVATE_NETWORK_INPUTS, allowedPorts: limits.ALLOWED_INPUT_PORTS });
  if (!verdict.ok) throw unreachable(`the input URL ${context}: ${verdict.reason}`);
  return new URL(raw);
}

function runnerUrl(raw: string): URL {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) {
    throw unreachable("the runner's input route is not a plain http(s) URL");
  }
  return url;
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw unreachable("the input URL redirected to an invalid URL");
  }
}

/** A DNS lookup that answers only when every address of the name is allowed (no mixed answers, no rebinding between check and use). */
function guardedLookup(policy: (address: string) => AddressVerdict, lookup: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as unknown as LookupAddress[];
      for (const { address } of list) {
        const verdict = policy(address);
        if (!verdict.allowed) {
          return callback(unreachable(`refused to connect to ${hostname}: it resolves to ${address}, a non-public address (${verdict.range}); only public addresses are allowed`), "", 0);
        }
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

interface RequestOptions {
  lookup: LookupFunction;
  policy: (address: string) => AddressVerdict;
  limits: FetchLimits;
  signal: AbortSignal;
  hop: Hop;
  /** The attempt's token, for the runner's input route only. */
  token?: string;
  /** The Range header, when a part of the input is asked for. */
  range?: string;
  /** The input's own keep-alive agent (InputOrigin). */
  agent: http.Agent;
}

function request(url: URL, options: RequestOptions): Promise<http.IncomingMessage> {
  const { limits, hop } = options;
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      lookup: options.lookup,
      signal: options.signal,
      // The input's own agent: its sockets are this input's only, each checked when it
      // connected and again below when it is reused.
      agent: options.agent,
      headers: {
        "user-agent": "media-jobs/1 (+input fetch)",
        accept: "*/*",
        "accept-encoding": "identity",
        ...(options.range ? { range: options.range } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}`, [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } : {}),
      },
    });
    const fail = (failure: JobFailure) => {
      hop.failure ??= failure;
      req.destroy(hop.failure);
    };
    // The connect limit runs from when the request has a socket: a request queued behind the
    // agent's busy sockets (several ranges of one input at once) is not "not connecting".
    let connectTimer: NodeJS.Timeout | undefined;
    req.on("socket", (socket: Socket) => {
      // The address actually connected, whatever resolved it: the last word on where bytes go.
      const check = () => {
        const address = socket.remoteAddress ?? "";
        const verdict = options.policy(address);
        if (!verdict.allowed) fail(unreachable(`refused the connection to ${url.host}: its address ${address} is non-public (${verdict.range})`));
      };
      if (req.reusedSocket || socket.remoteAddress !== undefined) {
        // A kept-alive socket of this input (reused, or handed over to a request queued for
        // it, when Node does not call it reused), connected and checked before: checked again.
        check();
      } else {
        connectTimer = setTimeout(
          () => fail(unreachable(`could not connect to ${url.host} within the limit of ${seconds(limits.INPUT_CONNECT_TIMEOUT_MS)}`)),
          limits.INPUT_CONNECT_TIMEOUT_MS,
        );
        socket.once("connect", check);
        socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
      }
    });
    req.setTimeout(limits.INPUT_IDLE_TIMEOUT_MS, () =>
      fail(unreachable(`the input server sent no data for ${seconds(limits.INPUT_IDLE_TIMEOUT_MS)} (the idle limit)`)),
    );
    req.on("response", (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    req.on("error", (error) => {
      clearTimeout(connectTimer);
      reject(hop.failure ?? error);
    });
  });
}

function describeNetworkError(error: unknown, url: URL): string {
  const code = (error as { code?: string })?.code;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `could not resolve the host ${url.hostname}`;
    case "ECONNREFUSED":
      return `${url.host} refused the connection`;
    case "ECONNRESET":
    case "ERR_STREAM_PREMATURE_CLOSE":
      return `${url.host} closed the connection before sending the whole file`;
    case "CERT_HAS_EXPIRED":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `the TLS certificate of ${url.hostname} is not valid (${code})`;
    default:
      return `could not download the input from ${url.host}`;
  }
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

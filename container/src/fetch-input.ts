// Downloads a user's input URL to a local file, safely (DESIGN §8): http(s) only, no
// credentials, allowed ports, public addresses only (checked on the address actually
// connected, on every redirect), at most 5 redirects, a size cap enforced on
// Content-Length and while streaming, and connect, idle and total time limits.
// Always: the request is destroyed and a partial file removed when anything fails.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { classifyAddress } from "./address-policy.ts";
import type { Config } from "./config.ts";
import { JobCancelled, JobFailure } from "./errors.ts";

export const MAX_REDIRECTS = 5;

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
  limits: FetchLimits;
  signal: AbortSignal;
  /** DNS resolution, replaceable in tests to point a name at any address. */
  lookup?: typeof dnsLookup;
}

function unreachable(message: string, cause?: unknown): JobFailure {
  return new JobFailure("input_unreachable", message, { cause });
}

/** Refuses a URL before any connection: scheme, credentials, port, literal addresses. */
export function checkUrl(url: URL, limits: FetchLimits): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw unreachable(`the input URL must use http or https, not ${url.protocol.replace(":", "")}`);
  }
  if (url.username || url.password) throw unreachable("the input URL must not contain a user name or password");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (!limits.ALLOW_PRIVATE_NETWORK_INPUTS && !limits.ALLOWED_INPUT_PORTS.includes(port)) {
    throw unreachable(`the input URL uses port ${port}; allowed ports are ${limits.ALLOWED_INPUT_PORTS.join(", ")}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) checkAddress(host, url.hostname, limits);
}

function checkAddress(address: string, host: string, limits: FetchLimits): void {
  if (limits.ALLOW_PRIVATE_NETWORK_INPUTS) return;
  const verdict = classifyAddress(address);
  if (!verdict.allowed) {
    throw unreachable(`refused to fetch ${host}: it resolves to ${address}, a ${verdict.range} address, and only public addresses are allowed`);
  }
}

/** A DNS lookup that refuses names resolving to any non-public address. */
function guardedLookup(limits: FetchLimits, lookup: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as unknown as LookupAddress[];
      try {
        for (const { address } of list) checkAddress(address, hostname, limits);
      } catch (refused) {
        return callback(refused as Error, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

export interface FetchedInput {
  path: string;
  size: number;
  /** The final URL after redirects. */
  url: string;
}

export async function fetchInput(rawUrl: string, destination: string, options: FetchInputOptions): Promise<FetchedInput> {
  const { limits, signal } = options;
  const lookup = guardedLookup(limits, options.lookup ?? dnsLookup);
  const total = AbortSignal.any([signal, AbortSignal.timeout(limits.INPUT_TOTAL_TIMEOUT_MS)]);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw unreachable("the input URL is not a valid URL");
  }
  try {
    for (let redirects = 0; ; redirects++) {
      checkUrl(url, limits);
      const response = await request(url, lookup, limits, total);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.destroy();
        if (redirects >= MAX_REDIRECTS) throw unreachable(`the input URL redirected more than ${MAX_REDIRECTS} times`);
        url = new URL(response.headers.location, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw unreachable(`the input URL answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`);
      }
      const declared = Number(response.headers["content-length"]);
      if (Number.isFinite(declared) && declared > limits.MAX_INPUT_BYTES) {
        response.destroy();
        throw tooLarge(limits.MAX_INPUT_BYTES, declared);
      }
      const size = await save(response, destination, limits, total);
      return { path: destination, size, url: url.href };
    }
  } catch (error) {
    await rm(destination, { force: true });
    if (signal.aborted) throw new JobCancelled();
    if (error instanceof JobFailure) throw error;
    if (total.aborted) throw unreachable(`downloading the input took longer than ${seconds(limits.INPUT_TOTAL_TIMEOUT_MS)}`, error);
    throw unreachable(describeNetworkError(error, url), error);
  }
}

function tooLarge(limit: number, size?: number): JobFailure {
  const what = size === undefined ? "the input is larger than" : `the input is ${formatBytes(size)}, over`;
  return new JobFailure("input_too_large", `${what} the limit of ${formatBytes(limit)}`);
}

function request(url: URL, lookup: LookupFunction, limits: FetchLimits, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      lookup,
      signal,
      headers: { "user-agent": "media-jobs/1 (+input fetch)", accept: "*/*", "accept-encoding": "identity" },
    });
    const connectTimer = setTimeout(
      () => req.destroy(unreachable(`could not connect to ${url.host} within ${seconds(limits.INPUT_CONNECT_TIMEOUT_MS)}`)),
      limits.INPUT_CONNECT_TIMEOUT_MS,
    );
    req.on("socket", (socket) => {
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
      if (!socket.connecting) clearTimeout(connectTimer);
    });
    req.setTimeout(limits.INPUT_IDLE_TIMEOUT_MS, () =>
      req.destroy(unreachable(`the input server stopped sending data for ${seconds(limits.INPUT_IDLE_TIMEOUT_MS)}`)),
    );
    req.on("response", (res) => {
      clearTimeout(connectTimer);
      resolve(res);
    });
    req.on("error", (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
  });
}

function save(response: http.IncomingMessage, destination: string, limits: FetchLimits, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const file = createWriteStream(destination);
    const fail = (error: unknown) => {
      response.destroy();
      file.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.MAX_INPUT_BYTES) fail(tooLarge(limits.MAX_INPUT_BYTES));
    });
    response.on("error", fail);
    response.on("aborted", () => fail(unreachable("the input server closed the connection before sending the whole file")));
    file.on("error", fail);
    file.on("finish", () => {
      signal.removeEventListener("abort", onAbort);
      if (!response.complete) return reject(unreachable("the input server closed the connection before sending the whole file"));
      resolve(size);
    });
    response.pipe(file);
  });
}

function describeNetworkError(error: unknown, url: URL): string {
  if (error instanceof JobFailure) return error.message;
  const code = (error as { code?: string })?.code;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `could not resolve the host ${url.hostname}`;
    case "ECONNREFUSED":
      return `${url.host} refused the connection`;
    case "ECONNRESET":
      return `${url.host} reset the connection`;
    case "CERT_HAS_EXPIRED":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `the TLS certificate of ${url.hostname} is not valid (${code})`;
    default:
      return `could not download the input from ${url.host}`;
  }
}

function seconds(ms: number): string {
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

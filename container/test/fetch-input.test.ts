import type { LookupAddress } from "node:dns";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyAddress } from "../../src/net/address-policy.ts";
import { JobCancelled, JobFailure } from "../src/errors.ts";
import { fetchInput } from "../src/fetch-input.ts";
import type { FetchInputOptions, FetchLimits } from "../src/input-origin.ts";
import { withTempDir } from "./helpers.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let port: number;
const routes = new Map<string, Handler>();
/** Resolves when the stalling handler has sent its first bytes. */
let stalled: () => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => (routes.get(req.url ?? "") ?? ((_, r) => r.writeHead(404, "Not Found").end()))(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  routes.set("/ok.bin", (_, res) => res.writeHead(200, { "content-length": 5 }).end("hello"));
  routes.set("/hop1", (_, res) => res.writeHead(302, { location: "/hop2" }).end());
  routes.set("/hop2", (_, res) => res.writeHead(301, { location: `http://cdn.example.com:${port}/ok.bin` }).end());
  routes.set("/to-internal", (_, res) => res.writeHead(302, { location: "/hop-internal" }).end());
  routes.set("/hop-internal", (_, res) => res.writeHead(307, { location: `http://files.corp-internal.example.com:${port}/ok.bin` }).end());
  routes.set("/to-metadata", (_, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end());
  routes.set("/to-ftp", (_, res) => res.writeHead(302, { location: "ftp://cdn.example.com/file" }).end());
  routes.set("/loop", (_, res) => res.writeHead(302, { location: "/loop" }).end());
  routes.set("/chunked-big", (_, res) => {
    res.writeHead(200, { "content-type": "application/pdf" }); // no Content-Length: chunked
    const chunk = Buffer.alloc(16 * 1024, 0x41);
    let sent = 0;
    const pump = () => {
      while (sent < 64 && res.write(chunk)) sent++;
      if (sent < 64) res.once("drain", pump);
      else res.end();
    };
    pump();
  });
  routes.set("/declared-big", (_, res) => res.writeHead(200, { "content-length": 10 * 1024 * 1024 }).end());
  routes.set("/stall", (_, res) => {
    res.writeHead(200, { "content-length": 1000 });
    res.write(Buffer.alloc(100, 0x42), () => stalled());
  });
  routes.set("/cut", (req, res) => {
    res.writeHead(200, { "content-length": 1000 });
    res.write(Buffer.alloc(100), () => req.socket.destroy());
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const limits: FetchLimits = {
  MAX_INPUT_BYTES: 1024 * 1024,
  INPUT_CONNECT_TIMEOUT_MS: 5_000,
  INPUT_IDLE_TIMEOUT_MS: 5_000,
  INPUT_TOTAL_TIMEOUT_MS: 30_000,
  ALLOW_PRIVATE_NETWORK_INPUTS: false,
  ALLOWED_INPUT_PORTS: [80, 443],
};

/** A resolver that points names at any address: every name not listed fails like NXDOMAIN. */
function resolver(names: Record<string, string | string[]>): NonNullable<FetchInputOptions["lookup"]> {
  return ((hostname: string, options: { all?: boolean }, callback: (e: Error | null, a: LookupAddress[] | string, f?: number) => void) => {
    const entry = names[hostname];
    if (!entry) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    const list = [entry].flat().map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  }) as unknown as NonNullable<FetchInputOptions["lookup"]>;
}

/** This test server stands in for a public host: only its own address counts as public. */
const testServerIsPublic = (address: string) => (address === "127.0.0.1" ? ({ allowed: true } as const) : classifyAddress(address));

type AttemptOptions = Partial<Omit<FetchInputOptions, "limits">> & { limits?: Partial<FetchLimits> };

async function attempt(url: string, options: AttemptOptions = {}) {
  return withTempDir(async (dir) => {
    const destination = join(dir, "input");
    try {
      const fetched = await fetchInput(url, destination, {
        signal: options.signal ?? new AbortController().signal,
        lookup: options.lookup,
        addressPolicy: options.addressPolicy,
        fromRunner: options.fromRunner,
        limits: { ...limits, ...options.limits },
      });
      return { ok: true as const, fetched, body: await readFile(destination) };
    } catch (error) {
      return { ok: false as const, error, leftover: existsSync(destination) };
    }
  });
}

function failureOf(outcome: Awaited<ReturnType<typeof attempt>>): { code: string; message: string } {
  if (outcome.ok) throw new Error("expected the fetch to fail");
  if (!(outcome.error instanceof JobFailure)) throw outcome.error;
  expect(outcome.leftover).toBe(false);
  return { code: outcome.error.code, message: outcome.error.message };
}

describe("fetchInput refuses non-public destinations", () => {
  it.each([
    ["127.0.0.1", /127\.0\.0\.1, a non-public address \(loopback\)/],
    ["10.1.2.3", /private/],
    ["172.20.0.9", /private/],
    ["192.168.1.20", /private/],
    ["169.254.169.254", /cloud metadata/],
    ["169.254.10.10", /link-local/],
    ["100.64.3.4", /carrier-grade NAT/],
    ["0.0.0.0", /this network/],
    ["255.255.255.255", /broadcast/],
    ["224.0.0.251", /multicast/],
    ["192.0.2.33", /documentation/],
    ["240.1.2.3", /reserved/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["fd00::1", /unique local/],
    ["fe80::1", /link-local/],
    ["::ffff:127.0.0.1", /loopback \(via IPv4-mapped IPv6\)/],
    ["::ffff:a9fe:a9fe", /cloud metadata/],
    ["64:ff9b::a00:1", /private.*NAT64/],
    ["2002:a00:1::1", /6to4/],
    [["93.184.216.34", "10.0.0.1"], /10\.0\.0\.1/],
  ])("a name resolving to %s", async (addresses, reason) => {
    const outcome = await attempt("http://media.example.com/file.pdf", { lookup: resolver({ "media.example.com": addresses }) });
    const failure = failureOf(outcome);
    expect(failure.code).toBe("input_unreachable");
    expect(failure.message).toMatch(reason);
    expect(failure.message).toContain("media.example.com");
  });

  it.each([
    ["http://0x7f.1/", /loopback/],
    ["http://[::ffff:7f00:1]/", /loopback/],
    ["http://metadata.google.internal/computeMetadata/v1/", /\.internal/],
    ["http://localhost:80/", /\.localhost/],
    ["http://example.com:6379/", /port 6379/],
    ["http://user:pw@example.com/", /user name or password/],
    ["ftp://example.com/a.pdf", /http or https/],
  ])("the URL %s, before any lookup", async (url, reason) => {
    const outcome = await attempt(url, { lookup: resolver({}) });
    expect(failureOf(outcome)).toMatchObject({ code: "input_unreachable", message: expect.stringMatching(reason) });
  });

  it("a redirect chain that ends at a name resolving to a private address", async () => {
    const lookup = resolver({ "cdn.example.com": "127.0.0.1", "files.corp-internal.example.com": "10.20.30.40" });
    const outcome = await attempt(`http://cdn.example.com:${port}/to-internal`, { lookup, addressPolicy: testServerIsPublic, limits: { ALLOWED_INPUT_PORTS: [port] } });
    expect(failureOf(outcome)).toEqual({ code: "input_unreachable", message: expect.stringMatching(/10\.20\.30\.40, a non-public address \(private/) });
  });

  it("a redirect to the cloud metadata address, and one to another scheme", async () => {
    const lookup = resolver({ "cdn.example.com": "127.0.0.1" });
    const options = { lookup, addressPolicy: testServerIsPublic, limits: { ALLOWED_INPUT_PORTS: [80, port] } };
    expect(failureOf(await attempt(`http://cdn.example.com:${port}/to-metadata`, options))).toEqual({
      code: "input_unreachable",
      message: expect.stringMatching(/redirected to a URL that is refused: .*169\.254\.169\.254.*cloud metadata/),
    });
    expect(failureOf(await attempt(`http://cdn.example.com:${port}/to-ftp`, options)).message).toMatch(/redirected .* not ftp/);
  });

  it("checks the address actually connected, even when resolution said otherwise (DNS rebinding)", async () => {
    let checks = 0;
    // The first answer (at resolution) is public, the second (on the connected socket) is not.
    const rebinding = (_address: string) => (++checks === 1 ? ({ allowed: true } as const) : { allowed: false as const, range: `loopback, check ${checks}` });
    const outcome = await attempt(`http://cdn.example.com:${port}/ok.bin`, {
      lookup: resolver({ "cdn.example.com": "127.0.0.1" }),
      addressPolicy: rebinding,
      limits: { ALLOWED_INPUT_PORTS: [port] },
    });
    expect(failureOf(outcome)).toEqual({
      code: "input_unreachable",
      message: `refused the connection to cdn.example.com:${port}: its address 127.0.0.1 is non-public (loopback, check 2)`,
    });
  });

  it("more than 5 redirects", async () => {
    const outcome = await attempt(`http://cdn.example.com:${port}/loop`, {
      lookup: resolver({ "cdn.example.com": "127.0.0.1" }),
      addressPolicy: testServerIsPublic,
      limits: { ALLOWED_INPUT_PORTS: [port] },
    });
    expect(failureOf(outcome)).toEqual({ code: "input_unreachable", message: "the input URL redirected more than 5 times" });
  });
});

describe("fetchInput downloads", () => {
  it("follows redirects between allowed hosts and reports the final URL", async () => {
    const outcome = await attempt(`http://cdn.example.com:${port}/hop1`, {
      lookup: resolver({ "cdn.example.com": "127.0.0.1" }),
      addressPolicy: testServerIsPublic,
      limits: { ALLOWED_INPUT_PORTS: [port] },
    });
    if (!outcome.ok) throw outcome.error;
    expect(outcome.fetched).toMatchObject({ size: 5, url: `http://cdn.example.com:${port}/ok.bin` });
    expect(outcome.body.toString()).toBe("hello");
  });

  it("reaches loopback on any port when private inputs are allowed (local development)", async () => {
    const outcome = await attempt(`http://127.0.0.1:${port}/ok.bin`, { limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true } });
    expect(outcome.ok && outcome.body.toString()).toBe("hello");
  });

  it("reaches the runner's input route on loopback with private inputs refused, with the attempt's token, but follows none of its redirects", async () => {
    const token = "a".repeat(43);
    const seen: (string | undefined)[] = [];
    routes.set("/runner-input", (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { "content-length": 5 }).end("hello");
    });
    const outcome = await attempt(`http://127.0.0.1:${port}/runner-input`, { fromRunner: { token } });
    expect(outcome.ok && outcome.body.toString()).toBe("hello");
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/to-metadata`, { fromRunner: { token } }))).toEqual({
      code: "input_unreachable",
      message: "the runner's input route answered HTTP 302 (a redirect), which is refused",
    });
    // The same loopback URL from a user is refused; one allowed carries no token.
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/runner-input`)).code).toBe("input_unreachable");
    await attempt(`http://127.0.0.1:${port}/runner-input`, { limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true } });
    expect(seen).toEqual([`Bearer ${token}`, undefined]);
  });

  it("reports the runner's input route failing as the service's failure (processing_interrupted, tried again), and an upload gone as input_unreachable", async () => {
    const token = "a".repeat(43);
    routes.set("/runner-503", (_req, res) => res.writeHead(503).end("R2 unavailable"));
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/runner-503`, { fromRunner: { token } }))).toEqual({
      code: "processing_interrupted",
      message: "the service could not read the uploaded input (its input route answered HTTP 503); the job is tried again",
    });
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/runner-gone`, { fromRunner: { token } }))).toEqual({
      code: "input_unreachable",
      message: "the uploaded input no longer exists (unused uploads are removed after 24 hours); upload it again",
    });
  });

  const local = { limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true } };

  it("fails a 404 with input_unreachable naming the status", async () => {
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/missing.pdf`, local))).toEqual({
      code: "input_unreachable",
      message: "the input URL answered HTTP 404 Not Found",
    });
  });

  it("fails a body over the size cap without Content-Length with input_too_large, removing the partial file", async () => {
    const outcome = await attempt(`http://127.0.0.1:${port}/chunked-big`, { limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true, MAX_INPUT_BYTES: 100 * 1024 } });
    expect(failureOf(outcome)).toEqual({ code: "input_too_large", message: "the input is larger than the limit of 100.0 KiB" });
  });

  it("fails a declared Content-Length over the cap before reading the body", async () => {
    expect(failureOf(await attempt(`http://127.0.0.1:${port}/declared-big`, local))).toEqual({
      code: "input_too_large",
      message: "the input is 10.0 MiB, over the limit of 1.0 MiB",
    });
  });

  it("fails a server that stalls mid-body with input_unreachable naming the idle limit", async () => {
    const outcome = await attempt(`http://127.0.0.1:${port}/stall`, { limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true, INPUT_IDLE_TIMEOUT_MS: 300 } });
    expect(failureOf(outcome)).toEqual({ code: "input_unreachable", message: "the input server sent no data for 0.3 s (the idle limit)" });
  });

  it("fails a connection closed before Content-Length bytes arrived", async () => {
    const failure = failureOf(await attempt(`http://127.0.0.1:${port}/cut`, local));
    expect(failure).toEqual({ code: "input_unreachable", message: expect.stringMatching(/closed the connection before sending the whole file/) });
  });

  it("fails an unresolvable name with input_unreachable", async () => {
    const outcome = await attempt("http://nowhere.example.com/a.pdf", { lookup: resolver({}) });
    expect(failureOf(outcome)).toEqual({ code: "input_unreachable", message: "could not resolve the host nowhere.example.com" });
  });

  it("stops at once when the job is cancelled mid-download", async () => {
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => (stalled = resolve));
    const run = attempt(`http://127.0.0.1:${port}/stall`, { signal: controller.signal, limits: { ALLOW_PRIVATE_NETWORK_INPUTS: true } });
    await started;
    controller.abort();
    const outcome = await run;
    expect(outcome.ok === false && outcome.error).toBeInstanceOf(JobCancelled);
    expect(outcome.ok === false && outcome.leftover).toBe(false);
  });
});

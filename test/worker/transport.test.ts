// The transport to a processor container: the containers package's own answers (a lost
// connection, no instance, a failed start) are told from the processor's, a lost
// connection is sent once more, and the rest is thrown as ContainerUnavailable.
// The texts are @cloudflare/containers 0.3.7's (dist/lib/container.js, containerFetch).
import { describe, expect, it } from "vitest";
import { testEnv } from "./helpers.ts";
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { newAttempt } from "../../src/runner/attempt.ts";
import { askProcessor, startOnProcessor } from "../../src/runner/processor-calls.ts";
import { ContainerUnavailable, processorFetch, type ContainerAnswerKind } from "../../src/runner/transport.ts";

const NO_INSTANCE =
  "There is no Container instance available at this time.\nThis is likely because you have reached your max concurrent instance count (set in wrangler config) or are you currently provisioning the Container.\nIf you are deploying your Container for the first time, check your dashboard to see provisioning status, this may take a few minutes.";

/** What the package answers itself (no protocol header). */
const platform = (status: number, body: string) => () => new Response(body, { status });
/** What the processor answers (it names its protocol version in every answer). */
const processor = (status: number, body: string) => () => new Response(body, { status, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } });

/** A container binding whose instance answers with `answers` in turn (a function that throws: the stub's call throws); records the requests. */
function containers(...answers: (() => Response)[]) {
  const requests: { instance: string; method: string; path: string; body: string; headers: Headers }[] = [];
  const env = {
    PROCESSOR_URL: "",
    PROCESSOR_TOKEN: "processor-token-0123456789",
    PROCESSOR: {
      getByName: (instance: string) => ({
        fetch: async (request: Request) => {
          const url = new URL(request.url);
          requests.push({ instance, method: request.method, path: url.pathname, body: await request.text(), headers: request.headers });
          const next = answers.shift();
          if (!next) throw new Error("no more answers");
          return next();
        },
      }),
    },
  } as unknown as Env;
  return { env, requests };
}

async function thrown(promise: Promise<unknown>): Promise<ContainerUnavailable> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ContainerUnavailable);
  return error as ContainerUnavailable;
}

const start = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "job.1" }) };

describe("the transport to a processor container", () => {
  it.each([
    ["disconnected", "Container suddenly disconnected, try again"],
    ["proxy failed", "Error proxying request to container: Network connection lost."],
  ] as const)("sends a call once more when the package answers 500 %s, with the same body and credentials", async (kind, text) => {
    const { env, requests } = containers(platform(500, text), processor(202, '{"id":"job.1"}'));
    const res = await processorFetch(env, "processor-3", "a".repeat(43))("/jobs", start);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('{"id":"job.1"}');
    expect(requests.map((r) => [r.instance, r.method, r.path, r.body])).toEqual([
      ["processor-3", "POST", "/jobs", start.body],
      ["processor-3", "POST", "/jobs", start.body],
    ]);
    for (const r of requests) {
      // A container gets the attempt's own token, never PROCESSOR_TOKEN (docs/security.md).
      expect(r.headers.get("authorization")).toBeNull();
      expect(r.headers.get(ATTEMPT_TOKEN_HEADER)).toBe("a".repeat(43));
      expect(r.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    }
    expect(new ContainerUnavailable(kind, 500, text).lostConnection).toBe(true);
  });

  it("sends a call once more when the stub's call throws Network connection lost", async () => {
    const { env, requests } = containers(() => {
      throw new Error("Network connection lost.");
    }, processor(200, "{}"));
    expect((await processorFetch(env, "processor-0")("/status")).status).toBe(200);
    expect(requests).toHaveLength(2);
  });

  it("sends it only once more: a second lost connection is thrown, naming the package's answer", async () => {
    const { env, requests } = containers(platform(500, "Container suddenly disconnected, try again"), platform(500, "Container suddenly disconnected, try again"));
    const error = await thrown(processorFetch(env, "processor-0")("/jobs/job.1"));
    expect(requests).toHaveLength(2);
    expect(error).toMatchObject({ kind: "disconnected", status: 500, lostConnection: true, notStarted: false });
    expect(error.message).toBe("the container platform answered 500 (disconnected): Container suddenly disconnected, try again");
  });

  it.each<[ContainerAnswerKind, number, string]>([
    ["no instance", 503, NO_INSTANCE],
    ["rate limited", 429, "you are requesting too many containers per second"],
    ["start failed", 500, "Failed to start container: Container exited before we could determine the container health, exit code: 1"],
    ["start failed", 500, "Failed to start container: the container is not listening"],
  ])("throws %s (%i) at once, as a container that was not started: the processor never had the request", async (kind, status, text) => {
    const { env, requests } = containers(platform(status, text));
    const error = await thrown(processorFetch(env, "processor-1")("/jobs", start));
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ kind, status, notStarted: true, lostConnection: false });
    // The first line only: the 503's advice to check the dashboard stays out of the logs.
    expect(error.message).toBe(`the container platform answered ${status} (${kind}): ${text.split("\n")[0]}`);
  });

  it("returns the processor's own 500 and 503 as they are, whatever their text, and sends nothing again", async () => {
    const { env, requests } = containers(processor(500, "Container suddenly disconnected, try again"), processor(503, NO_INSTANCE));
    const call = processorFetch(env, "processor-0");
    const first = await call("/jobs", start);
    expect([first.status, await first.text(), first.headers.get(PROTOCOL_HEADER)]).toEqual([500, "Container suddenly disconnected, try again", String(PROCESSOR_PROTOCOL_VERSION)]);
    expect((await call("/status")).status).toBe(503);
    expect(requests).toHaveLength(2);
  });

  it("returns an answer without the protocol header whose text is not the package's unchanged (status, headers, body)", async () => {
    const { env, requests } = containers(() => new Response("internal error", { status: 500, headers: { "x-trace": "t1" } }));
    const res = await processorFetch(env, "processor-0")("/status");
    expect([res.status, res.headers.get("x-trace"), await res.text()]).toEqual([500, "t1", "internal error"]);
    expect(requests).toHaveLength(1);
  });

  it("reaches the runner's calls as the container's answer, not as a processor of another protocol version", async () => {
    const attempt = newAttempt({ id: "job-t", orgId: "org", mode: "live", type: "compressImage", attempt: 1 }, "processor-0", "t".repeat(43));
    const job = { type: "compressImage", params: { url: "https://example.com/a.jpg" } } as never;
    const refused = containers(platform(503, NO_INSTANCE));
    const error = await thrown(startOnProcessor({ ...testEnv, ...refused.env } as Env, attempt, job));
    expect(error.kind).toBe("no instance");
    // A check that loses its connection once is answered by the second try.
    const state = { id: attempt.pid, state: "running", progress: 40 };
    const flaky = containers(platform(500, "Container suddenly disconnected, try again"), processor(200, JSON.stringify(state)));
    expect(await askProcessor({ ...testEnv, ...flaky.env } as Env, attempt)).toMatchObject(state);
    expect(flaky.requests.map((r) => r.path)).toEqual(["/jobs/job-t.1", "/jobs/job-t.1"]);
  });
});


// The processor's HTTP API parses what the Worker sends with the protocol's schemas: a
// start from a Worker of another protocol version is refused with 409 protocol_mismatch
// before anything runs, a malformed one with 400 and its issues; every answer names the
// processor's version, and /status reports it. Each attempt's routes answer only with its
// own token (as if it did not exist otherwise); PROCESSOR_TOKEN gates only POST /jobs and /status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_PROTOCOL_VERSION, processorStatus, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { createApp } from "../src/app.ts";
import { JobTable } from "../src/jobs.ts";
import { startMediaServer, testConfig } from "./helpers.ts";

const ours = { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };

describe("the processor's API and the protocol", () => {
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let app: ReturnType<typeof createApp>;
  let table: JobTable;
  beforeAll(async () => {
    media = await startMediaServer();
    const config = await testConfig();
    table = new JobTable(config);
    app = createApp(config, table);
  });
  afterAll(() => media.close());

  const start = (body: unknown, headers: Record<string, string> = ours) =>
    app.request("/jobs", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const nowhere = "http://127.0.0.1:9";
  const tokenOf = (id: string) => Buffer.from(`token of ${id} `.padEnd(40, "-")).toString("base64url");
  const request = (id: string, token = tokenOf(id)) => ({ id, type: "compressImage", params: { url: media.url("/missing.png"), format: "webp" }, callback: { url: `${nowhere}/e`, token, outputs: `${nowhere}/o/${id}` } });
  const asking = (token: string) => ({ [ATTEMPT_TOKEN_HEADER]: token });

  it("refuses a start from a Worker of another protocol version, or of none, and runs nothing", async () => {
    for (const [headers, worker] of [[{ [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION + 1) }, PROCESSOR_PROTOCOL_VERSION + 1], [{}, null]] as const) {
      const res = await start(request("mismatch_1.1"), headers);
      expect(res.status).toBe(409);
      expect(res.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
      expect(await res.json()).toEqual({ error: "protocol_mismatch", processor: PROCESSOR_PROTOCOL_VERSION, worker, message: expect.stringContaining("the versions must be equal") });
    }
    expect(table.get("mismatch_1.1")).toBeUndefined();
  });

  it("refuses a malformed start with 400 and the schema's issues", async () => {
    const cases: [unknown, string[]][] = [
      ["{not json", ["(body)"]],
      [{ ...request("bad_1.1"), type: "compressGif" }, ["type"]],
      [{ ...request("bad_1.1"), params: { url: media.url("/a.png"), format: "gif" } }, ["params.format"]],
      [{ ...request("bad_1.1"), callback: { ...request("bad_1.1").callback, input: "https://example.com/upload" } }, ["callback.input"]],
      [{ ...request("bad_1.1"), callback: { url: "ftp://runner/events", token: tokenOf("bad_1.1"), outputs: "http://runner/outputs" } }, ["callback.url"]],
      [{ ...request("bad_1.1"), callback: undefined }, ["callback"]],
    ];
    for (const [body, paths] of cases) {
      const res = await start(body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: string; issues: { path: string }[] };
      expect(answer.error).toMatch(/start request/);
      expect(answer.issues.map((i) => i.path)).toEqual(paths);
    }
    expect(table.get("bad_1.1")).toBeUndefined();
  });

  it("starts a well-formed start of its own version, and names its version in every answer", async () => {
    const res = await start(request("good_1.1"));
    expect(res.status).toBe(202);
    expect(res.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    expect(await res.json()).toMatchObject({ id: "good_1.1", state: "running" });
    const unknown = await app.request("/jobs/nobody_1.1", { headers: asking(tokenOf("nobody_1.1")) });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    // The input is missing: the job ends on its own; its files go with it.
    const deadline = Date.now() + 30_000;
    while (table.get("good_1.1")?.state === "running" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(table.get("good_1.1")).toMatchObject({ state: "failed", error: { code: "input_unreachable" } });
    expect((await app.request("/jobs/good_1.1", { method: "DELETE", headers: asking(tokenOf("good_1.1")) })).status).toBe(204);
    expect(table.get("good_1.1")).toBeUndefined();
  });

  it("answers an attempt's routes only with that attempt's own token, as if it did not exist otherwise", async () => {
    const id = "owned_1.1";
    expect((await start(request(id))).status).toBe(202);
    const other = tokenOf("other_1.1");
    for (const headers of [{}, asking(other), asking(`${tokenOf(id)}x`)]) {
      for (const [path, method] of [[`/jobs/${id}`, "GET"], [`/jobs/${id}/outputs/image.webp`, "GET"], [`/jobs/${id}/cancel`, "POST"], [`/jobs/${id}`, "DELETE"]] as const) {
        const res = await app.request(path, { method, headers });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(404);
        expect(await res.json()).toEqual({ error: "unknown job" });
      }
    }
    // Nothing was cancelled nor deleted; its own token reaches it.
    expect(table.get(id)).toBeDefined();
    expect((await app.request(`/jobs/${id}`, { headers: asking(tokenOf(id)) })).status).toBe(200);
    // A start of the same id is idempotent with the same token only.
    expect((await start(request(id, other))).status).toBe(403);
    expect((await start(request(id))).status).toBe(202);
    expect((await app.request(`/jobs/${id}/cancel`, { method: "POST", headers: asking(tokenOf(id)) })).status).toBe(200);
    expect((await app.request(`/jobs/${id}`, { method: "DELETE", headers: asking(tokenOf(id)) })).status).toBe(204);
    expect(table.get(id)).toBeUndefined();
    // Deleting what is gone is done already.
    expect((await app.request(`/jobs/${id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("with PROCESSOR_TOKEN (a processor reached over the network), gates a start and /status on it, and the attempt's routes on its token only", async () => {
    const gated = createApp({ ...(await testConfig()), PROCESSOR_TOKEN: "network-gate-token-0123" }, table);
    const id = "gated_1.1";
    expect((await gated.request("/jobs", { method: "POST", headers: { "content-type": "application/json", ...ours }, body: JSON.stringify(request(id)) })).status).toBe(401);
    expect((await gated.request("/status")).status).toBe(401);
    expect(table.get(id)).toBeUndefined();
    const bearer = { authorization: "Bearer network-gate-token-0123" };
    expect((await gated.request("/jobs", { method: "POST", headers: { "content-type": "application/json", ...ours, ...bearer }, body: JSON.stringify(request(id)) })).status).toBe(202);
    expect((await gated.request("/status", { headers: bearer })).status).toBe(200);
    // A Worker whose PROCESSOR_TOKEN was rotated still reaches the attempts it started.
    expect((await gated.request(`/jobs/${id}`, { headers: asking(tokenOf(id)) })).status).toBe(200);
    expect((await gated.request(`/jobs/${id}`, { method: "DELETE", headers: { ...asking(tokenOf(id)), authorization: "Bearer rotated-token-0123456789" } })).status).toBe(204);
  });

  it("reports its protocol version in /status", async () => {
    const res = await app.request("/status");
    expect(res.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    const status = processorStatus.parse(await res.json());
    expect(status).toMatchObject({ ok: true, protocol: PROCESSOR_PROTOCOL_VERSION, running: expect.any(Number), jobTypes: expect.arrayContaining(["compressImage"]) });
  });
});

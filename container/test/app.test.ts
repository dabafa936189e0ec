// The processor's HTTP API parses what the Worker sends with the protocol's schemas: a
// start from a Worker of another protocol version is refused with 409 protocol_mismatch
// before anything runs, a malformed one with 400 and its issues; every answer names the
// processor's version, and /status reports it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, processorStatus, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
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
  const request = (id: string) => ({ id, type: "compressImage", params: { url: media.url("/missing.png"), format: "webp" } });

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
      [{ ...request("bad_1.1"), inputUrl: "https://example.com/upload" }, ["inputUrl"]],
      [{ ...request("bad_1.1"), callback: { url: "ftp://runner/events", token: "t", outputs: "http://runner/outputs" } }, ["callback.url"]],
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
    const unknown = await app.request("/jobs/nobody_1.1");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    // The input is missing: the job ends on its own; its files go with it.
    const deadline = Date.now() + 30_000;
    while (table.get("good_1.1")?.state === "running" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(table.get("good_1.1")).toMatchObject({ state: "failed", error: { code: "input_unreachable" } });
    expect((await app.request("/jobs/good_1.1", { method: "DELETE" })).status).toBe(204);
  });

  it("reports its protocol version in /status", async () => {
    const res = await app.request("/status");
    expect(res.headers.get(PROTOCOL_HEADER)).toBe(String(PROCESSOR_PROTOCOL_VERSION));
    const status = processorStatus.parse(await res.json());
    expect(status).toMatchObject({ ok: true, protocol: PROCESSOR_PROTOCOL_VERSION, running: expect.any(Number), jobTypes: expect.arrayContaining(["compressImage"]) });
  });
});

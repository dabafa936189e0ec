// The client's workflows: createWorkflow sends the body with an Idempotency-Key and answers
// the step job ids; getWorkflow and waitForWorkflow give the client dialect (pending, each step
// as getJob gives a job); templates go to their routes.
import { describe, expect, it } from "vitest";
import { MediaJobsClient } from "../src/index.ts";
import { completedJob, processingJob, queuedJob } from "./fixtures.ts";
import { fakeFetch, json, type FakeFetch } from "./fake-fetch.ts";

function client(fetch: FakeFetch) {
  let now = 1_000_000;
  return new MediaJobsClient({ apiKey: "sk_test_key", fetch, now: () => now, sleep: async (ms) => void (now += ms) });
}

const workflow = (status: string, steps: Record<string, unknown>) => ({
  id: "wfl_1",
  status,
  progress: 0,
  input: "https://example.com/a.mp4",
  template: null,
  createdAt: "2026-11-29T00:00:00.000Z",
  metadata: {},
  steps,
});

describe("workflows in the client", () => {
  it("createWorkflow posts the steps with an Idempotency-Key and answers each step's job id", async () => {
    const fetch = fakeFetch(json(201, { id: "wfl_1", status: "queued", createdAt: "2026-11-29T00:00:00.000Z", steps: { a: { jobId: "job_a" } } }));
    const created = await client(fetch).createWorkflow({ url: "https://example.com/a.mp4", steps: { a: { type: "compressVideo", params: { quality: "low" } } } });
    expect(created).toEqual({ workflowId: "wfl_1", status: "pending", createdAt: "2026-11-29T00:00:00.000Z", steps: { a: { jobId: "job_a" } } });
    expect(fetch.calls[0]!.method).toBe("POST");
    expect(fetch.calls[0]!.url.endsWith("/v1/workflows")).toBe(true);
    expect(fetch.calls[0]!.headers.get("idempotency-key")).toMatch(/.+/);
    expect(fetch.calls[0]!.body).toEqual({ url: "https://example.com/a.mp4", steps: { a: { type: "compressVideo", params: { quality: "low" } } } });
  });

  it("waitForWorkflow reads until the workflow ends, each step in the client dialect", async () => {
    const fetch = fakeFetch(
      json(200, workflow("queued", { a: { ...queuedJob("compressVideo", "job_a"), use: null, output: null } })),
      json(200, workflow("processing", { a: { ...processingJob("compressVideo", 50, "job_a"), use: null, output: null } })),
      json(200, workflow("completed", { a: { ...completedJob("compressVideo", "job_a"), use: null, output: null } })),
    );
    const seen: string[] = [];
    const done = await client(fetch).waitForWorkflow("wfl_1", { onProgress: (w) => seen.push(w.status) });
    expect(seen).toEqual(["pending", "processing", "completed"]);
    const step = done.steps.a!;
    expect(step.status).toBe("completed");
    expect(step.use).toBeNull();
    // The result's fields at the step's root, as getJob puts a job's.
    if (step.type === "compressVideo" && step.status === "completed") expect(typeof step.url).toBe("string");
    else expect.unreachable();
  });

  it("createWorkflow sends a store; the workflow's store and each stored step's objects come back typed", async () => {
    const store = { destination: "dst_1", prefix: "orders/42/", steps: ["a"], status: "stored" as const };
    const stepStore = { destination: "dst_1", prefix: "orders/42/a/", status: "stored", objects: [{ name: "video.mp4", key: "orders/42/a/video.mp4", status: "stored", size: 10, etag: '"e"', error: null }] };
    const fetch = fakeFetch(
      json(201, { id: "wfl_1", status: "queued", createdAt: "2026-11-29T00:00:00.000Z", steps: { a: { jobId: "job_a" } } }),
      json(200, { ...workflow("completed", { a: { ...completedJob("compressVideo", "job_a"), store: stepStore, use: null, output: null } }), store }),
    );
    const c = client(fetch);
    await c.createWorkflow({ url: "https://example.com/a.mp4", steps: { a: { type: "compressVideo", params: {} } }, store: { destination: "dst_1", prefix: "orders/42/", steps: ["a"] } });
    expect(fetch.calls[0]!.body).toMatchObject({ store: { destination: "dst_1", prefix: "orders/42/", steps: ["a"] } });
    const done = await c.getWorkflow("wfl_1");
    expect(done.store).toEqual(store);
    expect(done.steps.a!.store?.objects.map((o) => o.key)).toEqual(["orders/42/a/video.mp4"]);
  });

  it("waitForWorkflow backs off while nothing changes where the server does not hold the read, as waitForJob does", async () => {
    const pending = () => json(200, workflow("processing", { a: { ...processingJob("compressVideo", 10, "job_a"), use: null, output: null } }));
    const fetch = fakeFetch(pending(), pending(), pending(), pending(), json(200, workflow("completed", { a: { ...completedJob("compressVideo", "job_a"), use: null, output: null } })));
    const slept: number[] = [];
    let now = 1_000_000;
    const c = new MediaJobsClient({ apiKey: "sk_test_key", fetch, now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    expect((await c.waitForWorkflow("wfl_1", { pollInterval: 100 })).status).toBe("completed");
    expect(slept.length).toBe(4);
    // The first read is new; then each unchanged one waits longer.
    expect(slept[0]).toBe(100);
    expect(slept[2]!).toBeGreaterThan(slept[1]!);
  });

  it("templates: create, update (PATCH), delete", async () => {
    const template = { id: "tpl_1", name: "t", steps: { a: { type: "compress-image", params: {} } }, createdAt: "x", updatedAt: "x" };
    const fetch = fakeFetch(json(201, template), json(200, { ...template, name: "u" }), json(200, { id: "tpl_1", deleted: true }));
    const c = client(fetch);
    expect((await c.createTemplate({ name: "t", steps: { a: { type: "compressImage", params: {} } } })).id).toBe("tpl_1");
    expect((await c.updateTemplate("tpl_1", { name: "u" })).name).toBe("u");
    expect(await c.deleteTemplate("tpl_1")).toEqual({ id: "tpl_1", deleted: true });
    expect(fetch.calls.map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual(["POST /v1/templates", "PATCH /v1/templates/tpl_1", "DELETE /v1/templates/tpl_1"]);
  });
});

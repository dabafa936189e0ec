// Job metadata (docs/api.md: metadata): set at creation in either dialect, stored in D1
// with one job_metadata row per pair, returned by GET, the list and the webhook body,
// and filterable in the list beside type and creation time. And DELETE /v1/jobs/:id.
import { describe, expect, it } from "vitest";
import { toSdkJob } from "../../src/contract/dialects.ts";
import { call, media, newKey, processorState, testEnv, waitFor, waitForJob } from "./helpers.ts";

const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;

async function metadataRows(jobId: string) {
  const { results } = await testEnv.DB.prepare("SELECT key, value, org_id, mode FROM job_metadata WHERE job_id = ? ORDER BY key").bind(jobId).all();
  return results;
}

describe("metadata", () => {
  it("round-trips in both dialects, into D1, GET, the SDK mapping and the webhook body", async () => {
    const { key, orgId } = await newKey();
    const tag = crypto.randomUUID();
    const http = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image?w=64&h=48"), metadata: { order: "ord_123", "user-id": "u_9" }, webhookUrl: `${receiver}/ok?id=${tag}` },
    });
    expect(http.status).toBe(201);
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=64&h=48") }, metadata: { order: "ord_456" } } });
    expect(sdk.status).toBe(201);
    const none = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=64&h=48") } } });

    const row = await testEnv.DB.prepare("SELECT metadata FROM jobs WHERE id = ?").bind(http.json.id).first<{ metadata: string }>();
    expect(JSON.parse(row!.metadata)).toEqual({ order: "ord_123", "user-id": "u_9" });
    expect(await metadataRows(http.json.id)).toEqual([
      { key: "order", value: "ord_123", org_id: orgId, mode: "live" },
      { key: "user-id", value: "u_9", org_id: orgId, mode: "live" },
    ]);
    expect(await metadataRows(none.json.id)).toEqual([]);

    const { job } = await waitForJob(key, http.json.id);
    expect(job.metadata).toEqual({ order: "ord_123", "user-id": "u_9" });
    expect(toSdkJob(job).metadata).toEqual({ order: "ord_123", "user-id": "u_9" });
    expect((await call("GET", `/v1/jobs/${sdk.json.id}`, { key })).json.metadata).toEqual({ order: "ord_456" });
    expect((await call("GET", `/v1/jobs/${none.json.id}`, { key })).json.metadata).toEqual({});

    const delivered = await waitFor(async () => {
      const list = (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { body: string }[];
      return list[0];
    }, "the webhook");
    expect(JSON.parse(delivered.body)).toMatchObject({ id: http.json.id, status: "completed", metadata: { order: "ord_123", "user-id": "u_9" } });
  });

  it.each([
    ["a value over 500 characters", "metadata.order", { order: "x".repeat(501) }, /500/],
    ["a key with a space", 'metadata["bad key"]', { "bad key": "x" }, /1–40 characters of letters, digits, _ and -/],
    ["a key over 40 characters", `metadata.${"k".repeat(41)}`, { ["k".repeat(41)]: "x" }, /1–40/],
    ["21 keys", "metadata", Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])), /at most 20 keys/],
    ["a number value", "metadata.count", { count: 3 }, /expected string/],
  ])("refuses %s with 400 naming %s, in both dialects", async (_, path, metadata, message) => {
    const { key, orgId } = await newKey();
    for (const body of [
      { type: "compress-image", input: media("/image"), metadata },
      { type: "compressImage", params: { url: media("/image") }, metadata },
    ]) {
      const res = await call("POST", "/v1/jobs", { key, body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
      expect(res.json.error.details).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });
});

describe("GET /v1/jobs filters", () => {
  async function seed(orgId: string) {
    // Rows written directly, with known times: t0 + i seconds.
    const t0 = 1_800_000_000;
    const rows = [
      { type: "compressImage", metadata: { order: "ord_1", shop: "a" } },
      { type: "compressPdf", metadata: { order: "ord_1", shop: "b" } },
      { type: "compressImage", metadata: { order: "ord_2", shop: "a" } },
      { type: "compressImage", metadata: null },
    ];
    const ids: string[] = [];
    for (const [i, r] of rows.entries()) {
      const id = `job_filter${orgId.slice(-6)}${String(i).padStart(8, "0")}`;
      ids.push(id);
      await testEnv.DB.prepare("INSERT INTO jobs (id, org_id, mode, type, status, priority, params, created_at, metadata) VALUES (?, ?, 'live', ?, 'cancelled', 5, '{}', ?, ?)")
        .bind(id, orgId, r.type, (t0 + i) * 1000, r.metadata ? JSON.stringify(r.metadata) : null)
        .run();
      for (const [k, v] of Object.entries(r.metadata ?? {})) {
        await testEnv.DB.prepare("INSERT INTO job_metadata (job_id, org_id, mode, key, value) VALUES (?, ?, 'live', ?, ?)").bind(id, orgId, k, v).run();
      }
    }
    return { ids, t0 };
  }
  const idsOf = (res: { json: { data: { id: string }[] } }) => res.json.data.map((j) => j.id);

  it("filters by metadata (one or more keys, exact), type (either spelling) and created[gte]/created[lt] in Unix seconds", async () => {
    const { key, orgId } = await newKey();
    const { ids, t0 } = await seed(orgId);
    // Another organization with the same metadata is never listed.
    const other = await newKey();
    await seed(other.orgId);

    expect(idsOf(await call("GET", "/v1/jobs?metadata[order]=ord_1", { key }))).toEqual([ids[1], ids[0]]);
    expect(idsOf(await call("GET", "/v1/jobs?metadata[order]=ord_1&metadata[shop]=a", { key }))).toEqual([ids[0]]);
    expect(idsOf(await call("GET", `/v1/jobs?metadata%5Border%5D=ord_2`, { key }))).toEqual([ids[2]]);
    expect(idsOf(await call("GET", "/v1/jobs?metadata[order]=ord_", { key }))).toEqual([]);
    expect(idsOf(await call("GET", "/v1/jobs?type=compress-image", { key }))).toEqual([ids[3], ids[2], ids[0]]);
    expect(idsOf(await call("GET", "/v1/jobs?type=compressPdf", { key }))).toEqual([ids[1]]);
    expect(idsOf(await call("GET", `/v1/jobs?created[gte]=${t0 + 1}&created[lt]=${t0 + 3}`, { key }))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await call("GET", `/v1/jobs?type=compress-image&metadata[shop]=a&created[gte]=${t0 + 1}`, { key }))).toEqual([ids[2]]);

    // Filters and cursors combine: page through the compress-image jobs one at a time.
    const first = await call("GET", "/v1/jobs?type=compress-image&limit=1", { key });
    const second = await call("GET", `/v1/jobs?type=compress-image&limit=1&cursor=${first.json.nextCursor}`, { key });
    expect([...idsOf(first), ...idsOf(second)]).toEqual([ids[3], ids[2]]);
  });

  it("uses the indexes: job_metadata_lookup for metadata, jobs_org_type_created for type", async () => {
    const plan = async (sql: string) =>
      ((await testEnv.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind("org", "ord_1").all()).results as { detail: string }[]).map((r) => r.detail).join("\n");
    expect(await plan("SELECT job_id FROM job_metadata WHERE org_id = ? AND mode = 'live' AND key = 'order' AND value = ?")).toMatch(/USING COVERING INDEX job_metadata_lookup/);
    expect(await plan("SELECT id FROM jobs WHERE org_id = ? AND mode = 'live' AND type = ? ORDER BY created_at DESC, id DESC")).toMatch(/USING (COVERING )?INDEX jobs_org_type_created/);
  });

  it.each([
    ["type=resize", "type"],
    ["created[gte]=yesterday", "created[gte]"],
    ["created[lte]=5", "created[lte]"],
    ["metadata[bad key]=x", "metadata[bad key]"],
    ["colour=red", "colour"],
  ])("refuses ?%s with 400 naming %s", async (query, path) => {
    const { key } = await newKey();
    const res = await call("GET", `/v1/jobs?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details).toEqual([expect.objectContaining({ path })]);
  });
});

describe("DELETE /v1/jobs/:id", () => {
  it("removes a finished job, its webhook deliveries, metadata and R2 outputs; GET then answers 404", async () => {
    const { key } = await newKey();
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image?w=64&h=48"), metadata: { order: "ord_del" }, webhookUrl: `${receiver}/ok?id=${tag}` },
    });
    const { job } = await waitForJob(key, created.json.id);
    expect(job.status).toBe("completed");
    await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${job.id}/webhooks`, { key });
      return res.json.data[0]?.status === "succeeded" ? true : undefined;
    }, "the delivery");
    const listed = await testEnv.OUTPUTS.list({ prefix: `outputs/${job.id}/` });
    expect(listed.objects.length).toBeGreaterThan(0);

    const res = await call("DELETE", `/v1/jobs/${job.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: job.id, deleted: true });

    expect((await testEnv.OUTPUTS.list({ prefix: `outputs/${job.id}/` })).objects).toEqual([]);
    const count = (sql: string) => testEnv.DB.prepare(sql).bind(job.id).first<{ n: number }>().then((r) => r!.n);
    expect(await count("SELECT count(*) AS n FROM jobs WHERE id = ?")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = ?")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE job_id = ?)")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM job_metadata WHERE job_id = ?")).toBe(0);
    expect((await call("GET", `/v1/jobs/${job.id}`, { key })).status).toBe(404);
    expect((await call("DELETE", `/v1/jobs/${job.id}`, { key })).status).toBe(404);
    expect(idsOfList(await call("GET", "/v1/jobs?metadata[order]=ord_del", { key }))).toEqual([]);
  });

  it("cancels a processing job first (its processor work stops), then deletes it", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const id = created.json.id as string;
    await waitForJob(key, id, ["processing"]);
    const pid = `${id}.1`;
    await waitFor(async () => ((await processorState(pid))?.state === "running" ? true : undefined), "the processor to run the attempt");

    const res = await call("DELETE", `/v1/jobs/${id}`, { key });
    expect(res.json).toEqual({ id, deleted: true });
    expect(await testEnv.DB.prepare("SELECT id FROM jobs WHERE id = ?").bind(id).first()).toBeNull();
    // The runner may be mid-poll and let go of the attempt itself: either way it goes.
    await waitFor(async () => ((await processorState(pid)) === undefined ? true : undefined), "the processor to drop the attempt");
    expect((await call("GET", `/v1/jobs/${id}`, { key })).status).toBe(404);
  });

  it("does not reveal or delete another organization's job", async () => {
    const a = await newKey();
    const b = await newKey();
    const created = await call("POST", "/v1/jobs", { key: a.key, body: { type: "compress-image", input: media("/image?w=64&h=48") } });
    const res = await call("DELETE", `/v1/jobs/${created.json.id}`, { key: b.key });
    expect(res.status).toBe(404);
    expect((await call("GET", `/v1/jobs/${created.json.id}`, { key: a.key })).status).toBe(200);
  });
});

function idsOfList(res: { json: { data: { id: string }[] } }) {
  return res.json.data.map((j) => j.id);
}

// A workflow's `store` (docs/workflows.md: store) against the local S3 server of the destination
// tests (test/support/s3-setup.ts), read back with its independent client; the workflow's
// webhook after the copies; and the cron's care of workflows: the missing webhook sent by the
// sweep, rows removed by retention, an end never taken while a failed step is undecided.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client.ts";
import { findJob } from "../../src/db/jobs.ts";
import { storeObjectsOf } from "../../src/db/destinations.ts";
import { decideOutcome, endWorkflow, findWorkflow, insertWorkflow } from "../../src/db/workflows.ts";
import { consumeDeadStore, sweepStores, type StoreMessage } from "../../src/destinations/store.ts";
import { outputKey, outputsPrefix } from "../../src/files/r2-keys.ts";
import { newId } from "../../src/lib/crypto.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { applyRetention, retentionConfig } from "../../src/ops/retention.ts";
import { sweepDeliveries } from "../../src/webhooks/schedule.ts";
import { call, media, newKey, testEnv, waitFor } from "./helpers.ts";

const s3 = testEnv as unknown as { S3_URL: string; S3_HELPER_URL: string; WEBHOOK_RECEIVER_URL: string };
const BUCKET = "media-jobs-dest";
const rowCount = async (sql: string, ...binds: unknown[]) => (await testEnv.DB.prepare(sql).bind(...binds).first<{ n: number }>())!.n;

async function newDestination(key: string): Promise<string> {
  const create = () =>
    call("POST", "/v1/destinations", {
      key,
      body: { name: "archive", endpoint: s3.S3_URL, bucket: BUCKET, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true },
    });
  let created = await create();
  // s3rver removes a folder left empty by a delete (stores/filesystem.js deleteObject), which a
  // check write of another test file running at once may be writing into: its 500 is s3rver's
  // race, not the service's, so the create is tried again (a real S3 has no folders).
  for (let tries = 1; tries < 3 && created.json?.error?.details?.[0]?.code === "InternalError"; tries++) created = await create();
  expect(created.status, created.text).toBe(201);
  return created.json.id;
}

async function readBack(key: string): Promise<{ size: number; sha256: string; etag: string } | undefined> {
  const response = await fetch(`${s3.S3_HELPER_URL}/object?bucket=${BUCKET}&key=${encodeURIComponent(key)}`);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`helper: ${response.status} ${await response.text()}`);
  return response.json();
}

async function sha256(bytes: ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function recorded(tag: string): Promise<{ body: string; headers: Record<string, string> }[]> {
  return (await fetch(`${s3.WEBHOOK_RECEIVER_URL}/recorded?id=${tag}`)).json();
}

/** The workflow once ended and its store no longer pending. */
async function settled(key: string, id: string) {
  return waitFor(
    async () => {
      const got = (await call("GET", `/v1/workflows/${id}`, { key })).json;
      return got?.endedAt && got.store?.status !== "pending" ? got : undefined;
    },
    `workflow ${id} to end and its store to settle`,
    90_000,
  );
}

const png = { type: "compressImage" as const, params: { format: "png" } };

describe("a workflow's store", () => {
  it("copies the marked steps' outputs under <prefix><step>/ once the workflow completed, then sends one webhook saying where each is", async () => {
    const { key, orgId } = await newKey();
    const destination = await newDestination(key);
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/workflows", {
      key,
      body: {
        url: media("/image?w=64&h=48"),
        steps: { small: { type: "compressImage", params: { format: "png", maxWidth: 32 } }, web: { type: "compressImage", params: { format: "webp" }, use: "small" }, full: png },
        store: { destination, prefix: `wf/${tag}/`, steps: ["web", "full"] },
        webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${tag}`,
      },
    });
    expect(created.status, created.text).toBe(201);
    const workflow = await settled(key, created.json.id);
    expect(workflow.status, JSON.stringify(workflow)).toBe("completed");
    expect(workflow.store).toEqual({ destination, prefix: `wf/${tag}/`, steps: ["web", "full"], status: "stored" });

    // The unmarked step copies nothing and shows no store; each marked one its outputs, read back.
    expect(workflow.steps.small.store).toBeUndefined();
    const db = database(testEnv.DB);
    const endedAt = (await findWorkflow(db, created.json.id))!.endedAt!;
    for (const name of ["web", "full"]) {
      const step = workflow.steps[name];
      expect(step.store).toMatchObject({ destination, prefix: `wf/${tag}/${name}/`, status: "stored" });
      expect(step.store.objects.length).toBeGreaterThan(0);
      for (const object of step.store.objects) {
        expect(object).toMatchObject({ status: "stored", error: null, key: `wf/${tag}/${name}/${object.name}` });
        const bytes = await (await testEnv.OUTPUTS.get(outputKey(step.id, object.name)))!.arrayBuffer();
        const copy = await readBack(object.key);
        expect(copy).toMatchObject({ size: bytes.byteLength, sha256: await sha256(bytes) });
        expect(object.etag).toBe(copy!.etag);
      }
      // Copied only once the whole workflow had completed.
      for (const row of await storeObjectsOf(db, step.id)) expect(row.updatedAt).toBeGreaterThanOrEqual(endedAt);
    }
    const smallOutputs = (await testEnv.OUTPUTS.list({ prefix: outputsPrefix(workflow.steps.small.id) })).objects;
    expect(smallOutputs.length).toBeGreaterThan(0);
    for (const o of smallOutputs) expect(await readBack(`wf/${tag}/small/${o.key.slice(outputsPrefix(workflow.steps.small.id).length)}`)).toBeUndefined();
    expect(await rowCount("SELECT count(*) AS n FROM store_objects WHERE job_id = ?", workflow.steps.small.id)).toBe(0);

    // One webhook, after the copies, with each output's key and status.
    const requests = await waitFor(async () => ((await recorded(tag)).length ? recorded(tag) : undefined), "the workflow's webhook");
    expect(requests).toHaveLength(1);
    const secret = (await testEnv.DB.prepare("SELECT webhook_secret AS s FROM organizations WHERE id = ?").bind(orgId).first<{ s: string }>())!.s;
    const body = new Webhook(secret).verify(requests[0]!.body, requests[0]!.headers) as { type: string; data: typeof workflow };
    expect(body.type).toBe("workflow.completed");
    expect(body.data.store).toEqual(workflow.store);
    for (const name of ["web", "full"]) {
      expect(body.data.steps[name].store.objects.map((o: { key: string; status: string }) => [o.key, o.status])).toEqual(
        workflow.steps[name].store.objects.map((o: { key: string }) => [o.key, "stored"]),
      );
    }
  }, 120_000);

  it("copies every step when store names none; a failed workflow copies nothing and reports at once", async () => {
    const { key } = await newKey();
    const destination = await newDestination(key);
    const tag = crypto.randomUUID();
    const all = await call("POST", "/v1/workflows", { key, body: { url: media("/image?w=32&h=24"), steps: { a: png, b: { ...png, use: "a" } }, store: { destination, prefix: `all/${tag}/` } } });
    expect(all.status, all.text).toBe(201);
    const done = await settled(key, all.json.id);
    expect(done.store).toMatchObject({ steps: ["a", "b"], status: "stored", prefix: `all/${tag}/` });
    for (const name of ["a", "b"]) {
      for (const object of done.steps[name].store.objects) expect(await readBack(`all/${tag}/${name}/${object.name}`)).toMatchObject({ size: object.size });
    }

    const failed = await call("POST", "/v1/workflows", {
      key,
      body: { url: media("/html"), steps: { ok: png, bad: { type: "compressVideo" } }, store: { destination, prefix: `failed/${tag}/` }, webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${tag}` },
    });
    expect(failed.status, failed.text).toBe(201);
    const ended = await settled(key, failed.json.id);
    expect(ended.status).toBe("failed");
    expect(ended.store).toMatchObject({ status: null, steps: ["ok", "bad"] });
    expect(ended.steps.bad.store.status).toBeNull();
    for (const name of ["ok", "bad"]) expect(await rowCount("SELECT count(*) AS n FROM store_objects WHERE job_id = ?", ended.steps[name].id)).toBe(0);
    const requests = await waitFor(async () => ((await recorded(tag)).length ? recorded(tag) : undefined), "the failed workflow's webhook");
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ type: "workflow.failed", data: { store: { status: null } } });
  }, 120_000);

  it("refuses a store naming an unknown step, another organization's destination, or a template's missing step, with 400 naming the field", async () => {
    const { key } = await newKey();
    const destination = await newDestination(key);
    const unknownStep = await call("POST", "/v1/workflows", { key, body: { url: media("/image"), steps: { a: png }, store: { destination, steps: ["a", "nope"] } } });
    expect(unknownStep.status).toBe(400);
    expect(unknownStep.json.error.details).toEqual([{ path: "store.steps[1]", message: expect.stringContaining('"nope"') }]);

    const other = await newKey();
    const foreign = await call("POST", "/v1/workflows", { key: other.key, body: { url: media("/image"), steps: { a: png }, store: { destination } } });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error.details).toEqual([{ path: "store.destination", message: expect.stringContaining(destination) }]);

    const badPrefix = await call("POST", "/v1/workflows", { key, body: { url: media("/image"), steps: { a: png }, store: { destination, prefix: "../up/" } } });
    expect(badPrefix.status).toBe(400);
    expect(badPrefix.json.error.details[0].path).toBe("store.prefix");

    const template = await call("POST", "/v1/templates", { key, body: { name: "t", steps: { a: png } } });
    const fromTemplate = await call("POST", "/v1/workflows", { key, body: { url: media("/image"), template: template.json.id, store: { destination, steps: ["b"] } } });
    expect(fromTemplate.status).toBe(400);
    expect(fromTemplate.json.error.details[0].path).toBe("store.steps[0]");
  });

  it("a step's store that finally fails fails the workflow's store, and the webhook goes then", async () => {
    const { key, orgId } = await newKey();
    const destination = await newDestination(key);
    const db = database(testEnv.DB);
    const id = newId("wfl");
    const now = Date.now();
    const [a, b] = [newId("job"), newId("job")];
    const base = { orgId, mode: "live" as const, type: "compressImage", priority: 5, createdAt: now - 5000, workflowId: id, metadata: null, status: "completed" as const, attempt: 1, completedAt: now - 1000, result: {} };
    const store = { destination, prefix: "x/", steps: ["a", "b"] };
    await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps: { a: png, b: png }, webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${id}`, store, createdAt: now - 5000, endedAt: now - 500 }, [
      { ...base, id: a, params: {}, workflowStep: "a", storeDestinationId: destination, storePrefix: "x/a/", storeStatus: "stored" },
      { ...base, id: b, params: {}, workflowStep: "b", storeDestinationId: destination, storePrefix: "x/b/", storeStatus: "pending" },
    ]);
    // While b copies, the sweep sends no webhook for the ended workflow.
    await sweepDeliveries(testEnv, now + TUNABLES.webhooks.stalledAfterMs + 1000);
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE workflow_id = ?", id)).toBe(0);

    const batch = createMessageBatch<StoreMessage>("media-jobs-store-dlq", [{ id: `dead-${b}`, timestamp: new Date(), attempts: 5, body: { jobId: b } }]);
    const ctx = createExecutionContext();
    await consumeDeadStore(batch, testEnv);
    await getQueueResult(batch, ctx);
    expect((await findJob(db, b))!.storeStatus).toBe("failed");
    const workflow = (await call("GET", `/v1/workflows/${id}`, { key })).json;
    expect(workflow.store.status).toBe("failed");
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE workflow_id = ? AND \"trigger\" = 'workflow'", id)).toBe(1);
  });
});

describe("the cron's care of workflows", () => {
  it("the store sweep resends a step's copy counting from the workflow's end, not the step's completion", async () => {
    const { orgId } = await newKey();
    const db = database(testEnv.DB);
    const stalled = TUNABLES.store.stalledAfterMs;
    // Long before every other row of this file, so the sweep at `at` sees only this step.
    const completedAt = 1000;
    const at = completedAt + stalled + 1000;
    const id = newId("wfl");
    await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps: { a: png }, store: { destination: "dst_gone", prefix: "", steps: ["a"] }, createdAt: completedAt - 1000, endedAt: at - 1000 }, [
      { id: newId("job"), orgId, mode: "live", type: "compressImage", priority: 5, createdAt: completedAt - 1000, workflowId: id, workflowStep: "a", status: "completed", attempt: 1, completedAt, params: {}, result: {}, storeDestinationId: "dst_gone", storePrefix: "a/", storeStatus: "pending" },
    ]);
    // The step completed long ago, but its copy began when the workflow ended, just now.
    expect(await sweepStores(testEnv, at)).toBe(0);
    await testEnv.DB.prepare("UPDATE workflows SET ended_at = ? WHERE id = ?").bind(completedAt, id).run();
    expect(await sweepStores(testEnv, at)).toBe(1);
  });

  it("the webhook sweep schedules the webhook of an ended workflow that has none, once", async () => {
    const { orgId } = await newKey();
    const db = database(testEnv.DB);
    const id = newId("wfl");
    const now = Date.now();
    const endedAt = now - TUNABLES.webhooks.stalledAfterMs - 60_000;
    await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps: { a: png }, webhookUrl: `${s3.WEBHOOK_RECEIVER_URL}/ok?id=${id}`, createdAt: endedAt - 5000, endedAt }, [
      { id: newId("job"), orgId, mode: "live", type: "compressImage", priority: 5, createdAt: endedAt - 5000, workflowId: id, workflowStep: "a", status: "completed", attempt: 1, completedAt: endedAt, params: {}, result: {} },
    ]);
    await sweepDeliveries(testEnv, now);
    await sweepDeliveries(testEnv, now);
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE workflow_id = ? AND \"trigger\" = 'workflow'", id)).toBe(1);
    await waitFor(async () => ((await recorded(id)).length ? recorded(id) : undefined), "the repaired webhook");
    expect(JSON.parse((await recorded(id))[0]!.body)).toMatchObject({ type: "workflow.completed", data: { id } });
  });

  it("retention removes an ended workflow's row with its steps once due, and keeps one still copying", async () => {
    const { orgId } = await newKey();
    const db = database(testEnv.DB);
    const created = Date.now() - 1000;
    const insert = async (storeStatus: "stored" | "pending") => {
      const id = newId("wfl");
      const job = newId("job");
      await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps: { a: png }, createdAt: created, endedAt: created + 500 }, [
        { id: job, orgId, mode: "live", type: "compressImage", priority: 5, createdAt: created, workflowId: id, workflowStep: "a", status: "completed", attempt: 1, completedAt: created + 500, params: {}, result: {}, storeDestinationId: "dst_x", storePrefix: "a/", storeStatus },
      ]);
      return { id, job };
    };
    const done = await insert("stored");
    const copying = await insert("pending");
    // Not yet due: nothing goes.
    await applyRetention(db, testEnv.OUTPUTS, retentionConfig(""), Date.now());
    expect(await findWorkflow(db, done.id)).toBeDefined();

    const far = Date.now() + 400 * 24 * 3600_000;
    const report = await applyRetention(db, testEnv.OUTPUTS, retentionConfig(""), far);
    expect(report.workflowsDeleted).toBeGreaterThanOrEqual(1);
    expect(await findWorkflow(db, done.id)).toBeUndefined();
    expect(await findJob(db, done.job)).toBeUndefined();
    expect(await findWorkflow(db, copying.id)).toBeDefined();
    expect(await findJob(db, copying.job)).toBeDefined();
  });
});

describe("a workflow's end", () => {
  it("is not taken while a failed step's outcome is undecided (its advance still to come), so it never ends completed with a failed step", async () => {
    const { orgId } = await newKey();
    const db = database(testEnv.DB);
    const id = newId("wfl");
    const now = Date.now();
    const base = { orgId, mode: "live" as const, type: "compressImage", priority: 5, createdAt: now, workflowId: id, attempt: 1, completedAt: now, params: {} };
    await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps: { a: png, b: png }, createdAt: now }, [
      { ...base, id: newId("job"), workflowStep: "a", status: "completed", result: {} },
      { ...base, id: newId("job"), workflowStep: "b", status: "failed", errorCode: "processing_failed", errorMessage: "x" },
    ]);
    expect(await endWorkflow(db, id, now)).toBeUndefined();
    expect(await decideOutcome(db, id, { status: "failed", step: "b", code: "processing_failed", message: "x" })).toBe(true);
    const ended = await endWorkflow(db, id, now);
    expect(ended?.workflow.outcome).toBe("failed");
    expect(ended?.stores).toEqual([]);
  });
});

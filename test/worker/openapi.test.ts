// The OpenAPI document against the running Worker: every public route of the app is in
// it, and real responses (and a real webhook) match the schema the document gives for
// their route and status. JSON Schema 2020-12 validation by Ajv, which runs in workerd,
// of the document closed as a strict client closes it (the document itself is checked as
// OpenAPI 3.1, and by Redocly's linter, in test/contract/openapi.test.ts).
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { newId } from "../../src/lib/crypto.ts";
import { limiterFor } from "../../src/limits/org-limiter.ts";
import { PLAN_LIMITS } from "../../src/limits/plans.ts";
import { call, media, newKey, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

type Doc = { paths: Record<string, Record<string, any>>; components: { responses: Record<string, any>; schemas: Record<string, any> }; webhooks: Record<string, any> };

const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
let doc: Doc;

/**
 * The document as a strict validator reads it (Redocly's example check, or a client that
 * refuses unknown fields): every object schema that names its properties and says nothing
 * of others is closed. A body must then match one schema whole, not pieces of it.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  if ("properties" in copy && !("additionalProperties" in copy) && !("unevaluatedProperties" in copy)) copy.unevaluatedProperties = false;
  return copy;
}

/** A schema of the document, with its component refs pointing into the document. */
function validator(key: string, schema: unknown) {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(closed(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'))) as object);
    validators.set(key, validate);
  }
  return validate;
}

function expectValid(key: string, schema: unknown, body: unknown) {
  const validate = validator(key, schema);
  const valid = validate(body);
  expect(valid, `${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`).toBe(true);
}

/** The documented response of the route for this status, with its JSON schema and header names. */
function documented(method: string, path: string, status: number) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  let response = operation.responses[String(status)];
  expect(response, `${method.toUpperCase()} ${path} documents status ${status}`).toBeDefined();
  if (response.$ref) response = doc.components.responses[response.$ref.split("/").pop()];
  return { schema: response.content?.["application/json"]?.schema, headers: Object.keys(response.headers ?? {}) };
}

/** Checks a response of the Worker against the document: status documented, JSON body valid. */
function conforms(method: string, path: string, res: { status: number; json: unknown; headers: Headers }) {
  const { schema, headers } = documented(method, path, res.status);
  expect(schema, `${method} ${path} ${res.status} has a JSON schema`).toBeDefined();
  expectValid(`${method} ${path} ${res.status}`, schema, res.json);
  // Every documented answer lists X-Request-Id; the other headers are checked where they must appear.
  if (headers.includes("X-Request-Id")) expect(res.headers.get("x-request-id"), `${method} ${path} ${res.status} x-request-id`).not.toBeNull();
}

/** A create sent as text/plain (`call` always sends JSON), read as `call` reads answers. */
async function plainText(key: string, body: string) {
  const res = await workerFetch("http://127.0.0.1:8787/v1/jobs", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text), text };
}

beforeAll(async () => {
  const res = await call("GET", "/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = res.json;
  ajv.addSchema(closed(doc) as object, "openapi.json");
});

describe("GET /v1/openapi.json", () => {
  it("is served without a key, as OpenAPI 3.1, the same document on every call", async () => {
    const again = await call("GET", "/v1/openapi.json");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.json).toEqual(doc);
    expect(again.json.openapi).toBe("3.1.0");
  });

  it("documents every public route of the app, and nothing of admin or the dashboard", () => {
    const routes = app.routes
      .filter((r) => r.method !== "ALL" && (r.path.startsWith("/v1/") || r.path === "/healthz"))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/\/$/, "").replace(/:(\w+)\??/g, "{$1}")}`)
      // tus: Hono answers HEAD with the GET route, and the document writes the upload URL's `upl_` out (openapi-paths.ts).
      .map((route) => route.replace(/^get \/v1\/uploads\/tus\/\{id\}$/, "head /v1/uploads/tus/{id}").replace("/v1/uploads/tus/{id}", "/v1/uploads/tus/upl_{key}"));
    expect(routes.length).toBeGreaterThan(5);
    const documentedRoutes = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(documentedRoutes.sort()).toEqual([...new Set(routes)].sort());
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/admin") || p.startsWith("/dashboard"))).toBe(false);
  });
});

describe("real responses match the document", () => {
  it("create in both dialects, run to completion, fetch, list, download, cancel, usage, webhook log", async () => {
    const { key } = await newKey();
    const tag = crypto.randomUUID();

    const http = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image?w=64&h=48"), options: { quality: 60 }, webhookUrl: `${receiver}/ok?id=${tag}` },
    });
    expect(http.status).toBe(201);
    conforms("post", "/v1/jobs", http);
    expect(http.headers.get("ratelimit-policy")).toMatch(/^"jobs-per-hour";q=\d+;w=3600$/);
    expect(http.headers.get("ratelimit")).toMatch(/^"jobs-per-hour";r=\d+;t=\d+$/);

    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=32&h=24"), format: "png" }, priority: 2 } });
    expect(sdk.status).toBe(201);
    conforms("post", "/v1/jobs", sdk);

    for (const id of [http.json.id, sdk.json.id]) {
      const { job, seen } = await waitForJob(key, id);
      expect(job.status).toBe("completed");
      for (const snapshot of seen) expectValid("Job", { $ref: "#/components/schemas/Job" }, snapshot);
      const res = await call("GET", `/v1/jobs/${id}`, { key });
      conforms("get", "/v1/jobs/{id}", res);
      expectValid("CompressImageResult", { $ref: "#/components/schemas/CompressImageResult" }, res.json.result);
      // The schemas are strict: a field the document does not name fails.
      expect(validator("Job", {})({ ...res.json, surprise: 1 })).toBe(false);
      expect(validator("Job", {})({ ...res.json, result: { ...res.json.result, width: "64" } })).toBe(false);

      const download = await workerFetch(res.json.result.url);
      const { headers } = documented("get", "/v1/files/{token}/{name}", download.status);
      expect(download.status).toBe(200);
      for (const name of headers) expect(download.headers.get(name), `download header ${name}`).not.toBeNull();
      await download.arrayBuffer();
      const ranged = await workerFetch(res.json.result.url, { headers: { range: "bytes=0-9" } });
      documented("get", "/v1/files/{token}/{name}", ranged.status);
      expect(ranged.status).toBe(206);
      await ranged.arrayBuffer();
    }

    const list = await call("GET", "/v1/jobs?limit=1", { key });
    conforms("get", "/v1/jobs", list);
    expect(list.json.nextCursor).toEqual(expect.any(String));
    conforms("get", "/v1/jobs", await call("GET", `/v1/jobs?limit=5&status=pending&cursor=${list.json.nextCursor}`, { key }));

    const finished = await call("POST", `/v1/jobs/${sdk.json.id}/cancel`, { key });
    expect(finished.json.success).toBe(false);
    conforms("post", "/v1/jobs/{id}/cancel", finished);
    const stalled = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/stall") } });
    const cancelled = await call("POST", `/v1/jobs/${stalled.json.id}/cancel`, { key });
    expect(cancelled.json.success).toBe(true);
    conforms("post", "/v1/jobs/{id}/cancel", cancelled);
    conforms("get", "/v1/jobs/{id}", await call("GET", `/v1/jobs/${stalled.json.id}`, { key }));

    conforms("get", "/v1/usage", await call("GET", "/v1/usage", { key }));

    // The webhook the receiver got: its headers and the SDK-dialect body of the document's `webhooks`.
    const [hook] = await waitFor(async () => {
      const got = (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { headers: Record<string, string>; body: string }[];
      return got.length ? got : undefined;
    }, "the webhook");
    const post = doc.webhooks.jobFinished.post;
    for (const header of post.parameters) expect(hook!.headers[header.name], `webhook header ${header.name}`).toBeTruthy();
    expectValid("webhook", post.requestBody.content["application/json"].schema, JSON.parse(hook!.body));
    expect(JSON.parse(hook!.body)).toMatchObject({ type: "compressImage", status: "completed" });

    const log = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${http.json.id}/webhooks`, { key });
      return res.json.data[0]?.status === "succeeded" ? res : undefined;
    }, "the delivery to succeed");
    conforms("get", "/v1/jobs/{id}/webhooks", log);
    const redelivered = await call("POST", `/v1/jobs/${http.json.id}/webhooks/redeliver`, { key });
    expect(redelivered.status).toBe(202);
    conforms("post", "/v1/jobs/{id}/webhooks/redeliver", redelivered);
  });

  it("a failed job and the error answers: 400, 401, 404, 413, 422, 403", async () => {
    const { key } = await newKey();
    const failed = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/html") } });
    const { job } = await waitForJob(key, failed.json.id);
    expect(job.status).toBe("failed");
    conforms("get", "/v1/jobs/{id}", await call("GET", `/v1/jobs/${failed.json.id}`, { key }));

    const cases = [
      ["post", "/v1/jobs", await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: "ftp://example.com/a.jpg", options: { quality: 900 } } }), 400],
      ["post", "/v1/jobs", await call("POST", "/v1/jobs", { key, body: "{not json" }), 400],
      ["get", "/v1/jobs", await call("GET", "/v1/jobs?limit=0", { key }), 400],
      ["post", "/v1/jobs/{id}/webhooks/redeliver", await call("POST", `/v1/jobs/${failed.json.id}/webhooks/redeliver`, { key }), 400],
      ["get", "/v1/jobs", await call("GET", "/v1/jobs"), 401],
      ["get", "/v1/usage", await call("GET", "/v1/usage", { key: "sk_live_" + "x".repeat(32) }), 401],
      ["get", "/v1/jobs/{id}", await call("GET", "/v1/jobs/job_doesnotexist000000000000", { key }), 404],
      ["post", "/v1/jobs/{id}/cancel", await call("POST", "/v1/jobs/job_doesnotexist000000000000/cancel", { key }), 404],
      ["get", "/v1/jobs/{id}/webhooks", await call("GET", "/v1/jobs/job_doesnotexist000000000000/webhooks", { key }), 404],
      ["post", "/v1/jobs", await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image"), options: { format: "x".repeat(70_000) } } }), 413],
    ] as const;
    for (const [method, path, res, status] of cases) {
      expect(res.status, `${method} ${path}`).toBe(status);
      conforms(method, path, res);
    }

    const body = { type: "compress-image", input: media("/image?w=16&h=16") };
    await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "openapi" } });
    const reused = await call("POST", "/v1/jobs", { key, body: { ...body, priority: 9 }, headers: { "idempotency-key": "openapi" } });
    expect(reused.status).toBe(422);
    conforms("post", "/v1/jobs", reused);

    const forged = await workerFetch("http://127.0.0.1:8787/v1/files/eyJrIjoieCJ9.AAAA/output.jpg");
    conforms("get", "/v1/files/{token}/{name}", { status: forged.status, headers: forged.headers, json: await forged.json() });
    expect(forged.status).toBe(403);
  });

  it("every error code's real answer matches its own response's schema: 400 with details, 401, 404, 409, 413, 415, 422, 429", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const body = { type: "compress-image", input: media("/image?w=16&h=16") };
    const invalid = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: "ftp://example.com/a.jpg", options: { quality: 900 } } });
    expect(invalid.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "options.quality" })]));

    // 409: the same key and body while the first request is still running (its row is written, no response yet).
    const text = JSON.stringify(body);
    const hash = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, "0")).join("");
    await testEnv.DB.prepare("INSERT INTO idempotency_keys (org_id, mode, key, request_hash, created_at) VALUES (?, 'live', 'busy', ?, ?)").bind(orgId, hash, Date.now()).run();
    const busy = await call("POST", "/v1/jobs", { key, body: text, headers: { "idempotency-key": "busy" } });

    await call("POST", "/v1/jobs", { key, body, headers: { "idempotency-key": "reused" } });
    const reused = await call("POST", "/v1/jobs", { key, body: { ...body, priority: 9 }, headers: { "idempotency-key": "reused" } });

    // 429: the free plan's hourly quota taken up in the organization's limiter, then one create more.
    const limiter = limiterFor(testEnv, orgId, "live");
    for (let i = 0; i < PLAN_LIMITS.free.jobsPerHour; i++) await limiter.admit(newId("job"), "free");
    const quota = await call("POST", "/v1/jobs", { key, body });

    const answers = [
      [invalid, 400],
      [await call("POST", "/v1/jobs", { key: "sk_live_" + "x".repeat(32), body }), 401],
      [await call("GET", "/v1/jobs/job_doesnotexist000000000000", { key }), 404],
      [busy, 409],
      [await call("POST", "/v1/jobs", { key, body: { ...body, options: { format: "x".repeat(70_000) } } }), 413],
      [await plainText(key, text), 415],
      [reused, 422],
      [quota, 429],
    ] as const;
    for (const [res, status] of answers) {
      expect(res.status, res.text).toBe(status);
      expect(res.json.error).toMatchObject({ message: expect.any(String), requestId: res.headers.get("x-request-id") });
      conforms(res.status === 404 ? "get" : "post", res.status === 404 ? "/v1/jobs/{id}" : "/v1/jobs", res);
      // The schema is that code's: the same body under another code does not match it.
      const { schema } = documented(res.status === 404 ? "get" : "post", res.status === 404 ? "/v1/jobs/{id}" : "/v1/jobs", status);
      const other = res.json.error.code === "not_found" ? "unauthorized" : "not_found";
      expect(validator(`${status}`, schema)({ error: { ...res.json.error, code: other } }), `${status} refuses code ${other}`).toBe(false);
    }
    expect(quota.json.error.details).toMatchObject({ limit: PLAN_LIMITS.free.jobsPerHour, window: 3600 });
  });

  it("uploads, metadata, list filters and delete: 201, 200, 400, 403, 404", async () => {
    const { key } = await newKey();
    const bytes = new Uint8Array(await (await fetch(media("/image?w=16&h=16"))).arrayBuffer());
    const created = await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "image/jpeg", size: bytes.byteLength } });
    expect(created.status).toBe(201);
    conforms("post", "/v1/uploads", created);
    conforms("post", "/v1/uploads", await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "text/html", size: 1 } }));
    const put = await workerFetch(created.json.target.url, { method: "PUT", headers: created.json.target.headers, body: bytes });
    conforms("put", "/v1/uploads/{id}/content", { status: put.status, headers: put.headers, json: await put.json() });
    expect(put.status).toBe(200);
    const refused = await workerFetch(`${created.json.target.url}x`, { method: "PUT", body: bytes });
    conforms("put", "/v1/uploads/{id}/content", { status: refused.status, headers: refused.headers, json: await refused.json() });
    expect(refused.status).toBe(403);
    conforms("get", "/v1/uploads/{id}", await call("GET", `/v1/uploads/${created.json.id}`, { key }));
    conforms("get", "/v1/uploads/{id}", await call("GET", "/v1/uploads/upl_doesnotexist000000000000", { key }));

    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${created.json.id}`, metadata: { order: "ord_1" } } });
    conforms("post", "/v1/jobs", job);
    const listed = await call("GET", "/v1/jobs?type=compress-image&metadata[order]=ord_1&created[gte]=0", { key });
    expect(listed.json.data).toHaveLength(1);
    conforms("get", "/v1/jobs", listed);
    conforms("get", "/v1/jobs", await call("GET", "/v1/jobs?created[gte]=soon", { key }));
    const deleted = await call("DELETE", `/v1/jobs/${job.json.id}`, { key });
    expect(deleted.json).toEqual({ id: job.json.id, deleted: true });
    conforms("delete", "/v1/jobs/{id}", deleted);
    conforms("delete", "/v1/jobs/{id}", await call("DELETE", `/v1/jobs/${job.json.id}`, { key }));
  });

  it("health matches its schema", async () => {
    conforms("get", "/healthz", await call("GET", "/healthz"));
  });
});

describe("GET /docs", () => {
  it("renders every endpoint, the webhook and every schema as plain HTML, with no scripts", async () => {
    const res = await workerFetch("http://127.0.0.1:8787/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script|<link[^>]+stylesheet|https?:\/\/cdn/i);
    for (const path of Object.keys(doc.paths)) expect(html).toContain(`<code>${path}</code>`);
    for (const name of Object.keys(doc.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
    expect(html).toContain("x-service-signature");
    expect(html).toContain("rate_limit_exceeded");
  });
});

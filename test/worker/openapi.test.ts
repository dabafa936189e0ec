// The OpenAPI document against the running Worker: every public route of the app is in
// it, and real responses (and a real webhook) match what the document gives for their
// route and status: headers, media type and JSON schema. Every operation, downloads and tus
// included, has at least one real answer checked (the last test lists any left out). JSON Schema 2020-12 validation by Ajv, which runs in workerd,
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

/** A node of the document with its `$ref`s followed. */
function resolve(node: any): any {
  while (node?.$ref) node = (node.$ref as string).split("/").slice(1).reduce((at: any, part: string) => at?.[part], doc);
  return node;
}

/** The operations a real answer was checked against, by operationId (the last test lists those left out). */
const covered = new Set<string>();

/** The documented response of the route for this status (or its `4XX` range), with its JSON schema and header names. */
function documented(method: string, path: string, status: number) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  const raw = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];
  expect(raw, `${method.toUpperCase()} ${path} documents status ${status}`).toBeDefined();
  const response = resolve(raw);
  return { operation, response, schema: response.content?.["application/json"]?.schema, headers: Object.keys(response.headers ?? {}) };
}

type Answer = { status: number; headers: Headers; json?: unknown; text?: string };

/** A raw response read as `call` reads one: the text, and the JSON when it is JSON. */
async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Whether a media type is one of the documented content keys (`type/*` and `*\/*` included). */
function mediaTypeDocumented(keys: string[], type: string): boolean {
  return keys.some((key) => key === type || key === "*/*" || (key.endsWith("/*") && type.startsWith(key.slice(0, -1))));
}

/**
 * Checks a real answer of the Worker against the document: its status is documented for the
 * operation; every header the document marks required is there and every documented header
 * that is there matches its schema; the body has a documented media type (none where the
 * document gives no content) and a JSON body matches its schema.
 */
function conforms(method: string, path: string, res: Answer) {
  const where = `${method.toUpperCase()} ${path} ${res.status}`;
  const { operation, response } = documented(method, path, res.status);
  covered.add(operation.operationId);
  for (const [name, raw] of Object.entries(response.headers ?? {})) {
    const header = resolve(raw);
    const value = res.headers.get(name);
    if (header.required) expect(value, `${where}: header ${name} is required`).not.toBeNull();
    if (value === null) continue;
    const typed = header.schema?.type === "integer" ? (/^\d+$/.test(value) ? Number(value) : value) : value;
    expectValid(`${where} header ${name}`, header.schema ?? {}, typed);
  }
  const body = res.text ?? (res.json === undefined ? "" : JSON.stringify(res.json));
  const keys = Object.keys(response.content ?? {});
  if (!keys.length || method === "head") {
    expect(body, `${where} has no body`).toBe("");
    return;
  }
  const type = res.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase();
  expect(type && mediaTypeDocumented(keys, type), `${where}: Content-Type ${type} is one of ${keys.join(", ")}`).toBe(true);
  if (type === "application/json") expectValid(where, response.content["application/json"].schema, res.json ?? JSON.parse(body));
}

/** A request body's media type is one the operation documents. */
function requestConforms(method: string, path: string, contentType: string) {
  const content = doc.paths[path]?.[method]?.requestBody?.content ?? {};
  expect(mediaTypeDocumented(Object.keys(content), contentType.split(";")[0]!.trim().toLowerCase()), `${method.toUpperCase()} ${path} takes ${contentType} (documented: ${Object.keys(content).join(", ")})`).toBe(true);
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

      const files = "/v1/files/{token}/{name}";
      const download = await answer(await workerFetch(res.json.result.url));
      expect(download.status).toBe(200);
      conforms("get", files, download);
      const ranged = await answer(await workerFetch(res.json.result.url, { headers: { range: "bytes=0-9" } }));
      expect(ranged.status).toBe(206);
      conforms("get", files, ranged);
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
    expect(quota.json.error.details).toEqual({ policy: "jobs-per-hour", limit: PLAN_LIMITS.free.jobsPerHour, window: 3600, retryAfter: expect.any(Number) });
    expect(quota.headers.get("ratelimit-policy")).toBe(`"jobs-per-hour";q=${PLAN_LIMITS.free.jobsPerHour};w=3600`);
  });

  it("uploads, metadata, list filters and delete: 201, 200, 400, 403, 404", async () => {
    const { key } = await newKey();
    const bytes = new Uint8Array(await (await fetch(media("/image?w=16&h=16"))).arrayBuffer());
    const created = await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "image/jpeg", size: bytes.byteLength } });
    expect(created.status).toBe(201);
    conforms("post", "/v1/uploads", created);
    conforms("post", "/v1/uploads", await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "text/html", size: 1 } }));
    // Exactly target.headers, as docs/api.md says: its Content-Type is the upload's own (image/jpeg), which the document takes.
    expect(created.json.target.headers["content-type"]).toBe("image/jpeg");
    requestConforms("put", "/v1/uploads/{id}/content", created.json.target.headers["content-type"]);
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

const TUS = "http://127.0.0.1:8787/v1/uploads/tus";
const TUS_PATH = "/v1/uploads/tus";
const TUS_UPLOAD = "/v1/uploads/tus/upl_{key}";

/** A tus request (Tus-Resumable 1.0.0 unless `headers` say otherwise), read whole. */
async function tus(method: string, url: string, options: { key?: string; headers?: Record<string, string>; body?: BodyInit } = {}) {
  const headers = new Headers({ "tus-resumable": "1.0.0", ...options.headers });
  if (options.key) headers.set("authorization", `Bearer ${options.key}`);
  return answer(await workerFetch(url, { method, headers, body: options.body ?? null }));
}

const tusMetadata = `filename ${btoa("clip.mp4")},filetype ${btoa("video/mp4")}`;
const createTus = (key: string, size: number, headers: Record<string, string> = {}) =>
  tus("POST", TUS, { key, headers: { "upload-length": String(size), "upload-metadata": tusMetadata, ...headers } });
const patchTus = (key: string, url: string, offset: number, body: Uint8Array, headers: Record<string, string> = {}) =>
  tus("PATCH", url, { key, body, headers: { "upload-offset": String(offset), "content-type": "application/offset+octet-stream", ...headers } });

describe("real answers of the tus routes, with the tus 1.0.0 status codes", () => {
  it("discovery, creation, HEAD, PATCH, the method override and termination: 204, 201, 200, 204, 410", async () => {
    const { key } = await newKey();
    const options = await tus("OPTIONS", TUS, { headers: {} });
    expect(options.status).toBe(204);
    conforms("options", TUS_PATH, options);

    const created = await createTus(key, 20);
    expect(created.status).toBe(201);
    conforms("post", TUS_PATH, created);
    const url = created.headers.get("location")!;
    conforms("options", TUS_UPLOAD, await tus("OPTIONS", url));

    const head = await tus("HEAD", url, { key });
    expect([head.status, head.headers.get("upload-offset"), head.headers.get("upload-length")]).toEqual([200, "0", "20"]);
    conforms("head", TUS_UPLOAD, head);

    requestConforms("patch", TUS_UPLOAD, "application/offset+octet-stream");
    const patched = await patchTus(key, url, 0, new Uint8Array(10));
    expect([patched.status, patched.headers.get("upload-offset")]).toEqual([204, "10"]);
    conforms("patch", TUS_UPLOAD, patched);

    const viaPost = await tus("POST", url, { key, body: new Uint8Array(5), headers: { "x-http-method-override": "PATCH", "upload-offset": "10", "content-type": "application/offset+octet-stream" } });
    expect([viaPost.status, viaPost.headers.get("upload-offset")]).toEqual([204, "15"]);
    conforms("post", TUS_UPLOAD, viaPost);
    const headViaPost = await tus("POST", url, { key, headers: { "x-http-method-override": "HEAD" } });
    expect([headViaPost.status, headViaPost.headers.get("upload-offset")]).toEqual([200, "15"]);
    conforms("post", TUS_UPLOAD, { ...headViaPost, text: "" });

    const terminated = await tus("DELETE", url, { key });
    expect(terminated.status).toBe(204);
    conforms("delete", TUS_UPLOAD, terminated);
    // tus termination: later requests on the URL get 404 or 410.
    for (const [method, res] of [["head", await tus("HEAD", url, { key })], ["patch", await patchTus(key, url, 15, new Uint8Array(5))], ["delete", await tus("DELETE", url, { key })]] as const) {
      expect(res.status, method).toBe(410);
      conforms(method, TUS_UPLOAD, res);
    }
  });

  it("the errors: 400, 401, 404, 409, 412, 413 (Upload-Length over Tus-Max-Size too), 415, 460", async () => {
    const { key } = await newKey({ plan: "free" });
    const maxSize = Number((await tus("OPTIONS", TUS)).headers.get("tus-max-size"));
    const created = await createTus(key, 100);
    const url = created.headers.get("location")!;
    const missing = `${TUS}/upl_${"x".repeat(24)}`;
    const sha1 = async (bytes: Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-1", bytes))));

    const cases = [
      ["post", TUS_PATH, await createTus(key, 10, { "upload-metadata": `filename ${btoa("notes.txt")},filetype ${btoa("text/plain")}` }), 400],
      ["post", TUS_PATH, await tus("POST", TUS, { headers: { "upload-length": "10", "upload-metadata": tusMetadata } }), 401],
      // tus 1.0.0: an unsupported version is 412 with Tus-Version, before anything else.
      ["post", TUS_PATH, await tus("POST", TUS, { key, headers: { "tus-resumable": "0.2.2", "upload-length": "10" } }), 412],
      ["head", TUS_UPLOAD, await tus("HEAD", url, { key, headers: { "tus-resumable": "2.0.0" } }), 412],
      // tus creation: a length over the server's maximum (Tus-Max-Size) is 413, and so is one over this plan's.
      ["post", TUS_PATH, await createTus(key, maxSize + 1), 413],
      ["post", TUS_PATH, await createTus(key, 99 * maxSize), 413],
      ["post", TUS_PATH, await createTus(key, PLAN_LIMITS.free.maxUploadBytes + 1), 413],
      ["post", TUS_PATH, await tus("POST", TUS, { key, headers: { "upload-length": "99999999999999999999", "upload-metadata": tusMetadata } }), 413],
      ["post", TUS_PATH, await tus("POST", TUS, { key, body: new Uint8Array(5), headers: { "upload-length": "10", "upload-metadata": tusMetadata, "content-type": "text/plain" } }), 415],
      ["head", TUS_UPLOAD, await tus("HEAD", missing, { key }), 404],
      ["patch", TUS_UPLOAD, await patchTus(key, missing, 0, new Uint8Array(1)), 404],
      ["patch", TUS_UPLOAD, await patchTus(key, url, 7, new Uint8Array(1)), 409],
      ["patch", TUS_UPLOAD, await patchTus(key, url, 0, new Uint8Array(101)), 413],
      ["patch", TUS_UPLOAD, await patchTus(key, url, 0, new Uint8Array(1), { "content-type": "application/octet-stream" }), 415],
      ["patch", TUS_UPLOAD, await patchTus(key, url, 0, new Uint8Array(4), { "upload-checksum": `sha1 ${await sha1(new Uint8Array([1, 2, 3, 4]))}` }), 460],
      ["patch", TUS_UPLOAD, await patchTus(key, url, 0, new Uint8Array(4), { "upload-checksum": "md5 AAAA" }), 400],
      ["post", TUS_UPLOAD, await tus("POST", url, { key, headers: { "x-http-method-override": "PUT" } }), 400],
    ] as const;
    for (const [method, path, res, status] of cases) {
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
      conforms(method, path, res);
    }
    for (const [method, , res, status] of cases) {
      if (status === 413 && method === "post") expect((res.json as any).error.details).toEqual({ limit: PLAN_LIMITS.free.maxUploadBytes });
      if (status === 412) expect(res.headers.get("tus-version")).toBe("1.0.0");
    }
  });

  it("browser upload tokens: 201, and a creation past the token's maxBytes is 413 with the limit", async () => {
    const { key } = await newKey();
    const minted = await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxUploads: 1, maxBytes: 1000 } });
    expect(minted.status).toBe(201);
    conforms("post", "/v1/uploads/tus/tokens", minted);
    conforms("post", "/v1/uploads/tus/tokens", await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxUploads: 0 } }));
    const over = await createTus(minted.json.token, 1001);
    expect(over.status).toBe(413);
    conforms("post", TUS_PATH, over);
    expect((over.json as any).error.details).toEqual({ limit: 1000 });
  });

  it("the open-uploads 429 names that limit in its details and its RateLimit headers", async () => {
    const { key } = await newKey({ plan: "free" });
    for (let i = 0; i < PLAN_LIMITS.free.openUploads; i++) expect((await createTus(key, 10)).status).toBe(201);
    const refused = await createTus(key, 10);
    expect(refused.status).toBe(429);
    conforms("post", TUS_PATH, refused);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect((refused.json as any).error.details).toEqual({ policy: "open-uploads", limit: PLAN_LIMITS.free.openUploads, retryAfter });
    // draft-ietf-httpapi-ratelimit-headers: a limit on things at once has a quota and no window; t is Retry-After's moment.
    expect(refused.headers.get("ratelimit-policy")).toBe(`"open-uploads";q=${PLAN_LIMITS.free.openUploads}`);
    expect(refused.headers.get("ratelimit")).toBe(`"open-uploads";r=0;t=${retryAfter}`);
  });
});

describe("real answers of the downloads and the rest", () => {
  it("downloads: the output's own media type, ranges (206, 416 past the end), a removed output 404, the preflight", async () => {
    const { key } = await newKey();
    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=64&h=48"), options: { format: "webp" } } });
    const { job: done } = await waitForJob(key, job.json.id);
    expect(done.status).toBe("completed");
    const link = (await call("GET", `/v1/jobs/${job.json.id}`, { key })).json.result.url as string;
    const files = "/v1/files/{token}/{name}";

    const whole = await workerFetch(link);
    const size = Number(whole.headers.get("content-length"));
    expect([whole.status, whole.headers.get("content-type")]).toEqual([200, "image/webp"]);
    conforms("get", files, await answer(whole));

    for (const [range, status, contentRange] of [
      ["bytes=0-9", 206, `bytes 0-9/${size}`],
      ["bytes=-4", 206, `bytes ${size - 4}-${size - 1}/${size}`],
      [`bytes=${size - 2}-${size + 100}`, 206, `bytes ${size - 2}-${size - 1}/${size}`],
      [`bytes=${size}-`, 416, `bytes */${size}`],
      [`bytes=${size + 1000}-${size + 2000}`, 416, `bytes */${size}`],
      ["bytes=-0", 416, `bytes */${size}`],
    ] as const) {
      const res = await answer(await workerFetch(link, { headers: { range } }));
      expect([res.status, res.headers.get("content-range")], range).toEqual([status, contentRange]);
      if (status === 206) expect(res.headers.get("content-length")).toBe(contentRange.replace(/^bytes (\d+)-(\d+).*$/, (_, a, b) => String(Number(b) - Number(a) + 1)));
      else expect(res.text).toBe("");
      conforms("get", files, res);
    }
    // A malformed or multi-part Range is ignored: the whole file.
    for (const range of ["bytes=5-2", "items=0-1", "bytes=0-1,4-5"]) expect((await answer(await workerFetch(link, { headers: { range } }))).status, range).toBe(200);

    const preflight = await answer(await workerFetch(link, { method: "OPTIONS", headers: { origin: "https://player.example", "access-control-request-method": "GET", "access-control-request-headers": "range" } }));
    expect(preflight.status).toBe(204);
    conforms("options", files, preflight);

    await call("DELETE", `/v1/jobs/${job.json.id}`, { key });
    const removed = await answer(await workerFetch(link, { headers: { range: "bytes=0-1" } }));
    expect(removed.status).toBe(404);
    conforms("get", files, removed);
  });

  it("events: a finished job's stream ends with its `end` event, each event a Job; 404 for an unknown job", async () => {
    const { key } = await newKey();
    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=16&h=16") } });
    await waitForJob(key, job.json.id);
    const stream = await call("GET", `/v1/jobs/${job.json.id}/events`, { key });
    expect(stream.status).toBe(200);
    conforms("get", "/v1/jobs/{id}/events", stream);
    const events = stream.text.split("\n\n").filter((block) => block.trim()).map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
    expect(events.at(-1)?.event).toBe("end");
    for (const { data } of events) expectValid("Job", { $ref: "#/components/schemas/Job" }, data);
    conforms("get", "/v1/jobs/{id}/events", await call("GET", "/v1/jobs/job_doesnotexist000000000000/events", { key }));
  });

  it("workflows and templates: create, get, list, events, cancel, delete (409 then 200), the webhook; 400, 404", async () => {
    const { key } = await newKey();
    const tag = crypto.randomUUID();
    const template = await call("POST", "/v1/templates", { key, body: { name: "two", steps: { a: { type: "compress-image", options: { format: "png" } }, b: { type: "compressImage", params: { format: "webp" }, use: "a" } } } });
    conforms("post", "/v1/templates", template);
    conforms("get", "/v1/templates", await call("GET", "/v1/templates", { key }));
    conforms("get", "/v1/templates/{id}", await call("GET", `/v1/templates/${template.json.id}`, { key }));
    conforms("patch", "/v1/templates/{id}", await call("PATCH", `/v1/templates/${template.json.id}`, { key, body: { name: "two steps" } }));
    conforms("post", "/v1/templates", await call("POST", "/v1/templates", { key, body: { name: "bad", steps: { a: { type: "nope" } } } }));

    const created = await call("POST", "/v1/workflows", { key, body: { url: media("/image?w=16&h=16"), template: template.json.id, webhookUrl: `${receiver}/ok?id=${tag}` } });
    expect(created.status, created.text).toBe(201);
    conforms("post", "/v1/workflows", created);
    conforms("post", "/v1/workflows", await call("POST", "/v1/workflows", { key, body: { url: media("/image"), steps: { a: { type: "compressImage", use: "b" } } } }));
    const id = created.json.id;
    const ended = await waitFor(async () => {
      const res = await call("GET", `/v1/workflows/${id}`, { key, headers: { prefer: "wait=5" } });
      return res.json.status === "completed" ? res : undefined;
    }, "the workflow to complete", 60_000);
    conforms("get", "/v1/workflows/{id}", ended);
    conforms("get", "/v1/workflows/{id}", await call("GET", "/v1/workflows/wfl_doesnotexist", { key }));
    conforms("get", "/v1/workflows", await call("GET", "/v1/workflows", { key }));
    const stream = await call("GET", `/v1/workflows/${id}/events`, { key });
    conforms("get", "/v1/workflows/{id}/events", stream);
    for (const block of stream.text.split("\n\n").filter((b) => b.trim())) {
      const event = /^event: (.*)$/m.exec(block)![1]!;
      if (event === "workflow" || event === "end") expectValid("Workflow", { $ref: "#/components/schemas/Workflow" }, JSON.parse(/^data: (.*)$/m.exec(block)![1]!));
    }
    conforms("post", "/v1/workflows/{id}/cancel", await call("POST", `/v1/workflows/${id}/cancel`, { key }));
    const got = await waitFor(async () => {
      const list = (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { body: string }[];
      return list.length ? list : undefined;
    }, "the workflow's webhook");
    expectValid("WorkflowWebhook", doc.webhooks.workflowEnded.post.requestBody.content["application/json"].schema, JSON.parse(got[0]!.body));

    const running = await call("POST", "/v1/workflows", { key, body: { url: media("/stall"), steps: { a: { type: "compressVideo" } } } });
    conforms("delete", "/v1/workflows/{id}", await call("DELETE", `/v1/workflows/${running.json.id}`, { key }));
    await call("POST", `/v1/workflows/${running.json.id}/cancel`, { key });
    conforms("delete", "/v1/workflows/{id}", await call("DELETE", `/v1/workflows/${id}`, { key }));
    conforms("delete", "/v1/templates/{id}", await call("DELETE", `/v1/templates/${template.json.id}`, { key }));
  });

  it("the document itself", async () => {
    conforms("get", "/v1/openapi.json", await call("GET", "/v1/openapi.json"));
  });
});

describe("real answers of the destinations routes (a real S3 server, test/support/s3-setup.ts)", () => {
  it("create 201 and 400 with the check's problem, list, get, check (ok and not), delete 204 and 404, and a job's store", async () => {
    const { key } = await newKey();
    const s3Url = (testEnv as unknown as { S3_URL: string }).S3_URL;
    const body = { name: "archive", endpoint: s3Url, bucket: "media-jobs-dest", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true };
    const created = await call("POST", "/v1/destinations", { key, body });
    expect(created.status).toBe(201);
    conforms("post", "/v1/destinations", created);
    const refused = await call("POST", "/v1/destinations", { key, body: { ...body, accessKeyId: "NOPE" } });
    expect(refused.status).toBe(400);
    conforms("post", "/v1/destinations", refused);
    conforms("get", "/v1/destinations", await call("GET", "/v1/destinations", { key }));
    conforms("get", "/v1/destinations/{id}", await call("GET", `/v1/destinations/${created.json.id}`, { key }));
    const checked = await call("POST", `/v1/destinations/${created.json.id}/check`, { key });
    expect(checked.json.ok).toBe(true);
    conforms("post", "/v1/destinations/{id}/check", checked);

    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image"), store: { destination: created.json.id, prefix: "docs/" } } });
    expect(job.status).toBe(201);
    const stored = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${job.json.id}`, { key });
      return res.json.store?.status === "stored" ? res : undefined;
    }, "the store");
    conforms("get", "/v1/jobs/{id}", stored);

    const deleted = await call("DELETE", `/v1/destinations/${created.json.id}`, { key });
    expect(deleted.status).toBe(204);
    conforms("delete", "/v1/destinations/{id}", deleted);
    const gone = await call("DELETE", `/v1/destinations/${created.json.id}`, { key });
    expect(gone.status).toBe(404);
    conforms("delete", "/v1/destinations/{id}", gone);
    conforms("post", "/v1/destinations/{id}/check", await call("POST", `/v1/destinations/${created.json.id}/check`, { key }));
  });
});

describe("coverage", () => {
  // Runs after the tests above (a file's tests run in order): every operation had a real answer checked.
  it("every operation of the document had at least one real answer checked against it", () => {
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item).map((operation: any) => operation.operationId as string));
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.filter((id) => !covered.has(id)), "operations with no real answer checked").toEqual([]);
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

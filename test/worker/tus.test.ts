// Resumable uploads over tus 1.0.0 (docs/api.md: resumable uploads): discovery, creation
// (with upload), HEAD offsets, PATCHes of any size buffered into equal R2 parts, offset
// conflicts, concurrent PATCHes refused, checksums, termination, the cron's expiry, the
// plan's limits, browser upload tokens and CORS, and a job on the finished upload.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client.ts";
import { uploadKey, uploadTailKey, uploadTailsPrefix } from "../../src/files/r2-keys.ts";
import { appendBody, type AppendOutcome, type Checksum } from "../../src/files/tus.ts";
import { cleanupUploads } from "../../src/files/uploads.ts";
import { findUpload } from "../../src/db/uploads.ts";
import { PLAN_LIMITS } from "../../src/limits/plans.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { call, media, newKey, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const PART = TUNABLES.tus.partBytes;
const ENDPOINT = "http://127.0.0.1:8787/v1/uploads/tus";

function tus(method: string, url: string, options: { key?: string; headers?: Record<string, string>; body?: BodyInit | null } = {}) {
  const headers = new Headers({ "tus-resumable": "1.0.0", ...options.headers });
  if (options.key) headers.set("authorization", `Bearer ${options.key}`);
  return exports.default.fetch(new Request(url.startsWith("http") ? url : `${ENDPOINT}${url}`, { method, headers, body: options.body ?? null, duplex: "half" } as RequestInit));
}

const b64 = (text: string) => btoa(text);
const metadata = (filename: string, filetype?: string) => `filename ${b64(filename)}${filetype ? `,filetype ${b64(filetype)}` : ""}`;

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(length, at + 65536)));
  return bytes;
}

async function create(key: string, size: number, headers: Record<string, string> = {}) {
  const res = await tus("POST", "", { key, headers: { "upload-length": String(size), "upload-metadata": metadata("clip.mp4", "video/mp4"), ...headers } });
  return { res, url: res.headers.get("location")!, id: res.headers.get("location")?.split("/").pop() as string };
}

function patch(key: string, url: string, offset: number, body: BodyInit, headers: Record<string, string> = {}) {
  return tus("PATCH", url, { key, body, headers: { "upload-offset": String(offset), "content-type": "application/offset+octet-stream", ...headers } });
}

async function row(id: string) {
  return testEnv.DB.prepare("SELECT status, protocol, received, multipart_id, parts, lease_id, expires_at, token_id FROM uploads WHERE id = ?").bind(id).first<{
    status: string;
    protocol: string;
    received: number;
    multipart_id: string | null;
    parts: string | null;
    lease_id: string | null;
    expires_at: number;
    token_id: string | null;
  }>();
}

/** The upload's tail objects in R2 (one while unfinished, none once complete or discarded). */
async function tails(id: string) {
  return (await testEnv.OUTPUTS.list({ prefix: uploadTailsPrefix(id) })).objects.map((object) => object.key);
}

/** Bytes compared by their SHA-256 (vitest's diff of megabytes of bytes would not fit in memory). */
async function fingerprint(bytes: Uint8Array | ArrayBuffer) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return `${view.byteLength}:${await digest("SHA-256", view)}`;
}

async function digest(algorithm: "SHA-1" | "SHA-256", bytes: Uint8Array) {
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest(algorithm, bytes))));
}

/** Whether R2 still has the multipart upload: a part can be sent to it only until it is completed or aborted. */
async function multipartAlive(id: string, multipartId: string) {
  try {
    await testEnv.OUTPUTS.resumeMultipartUpload(uploadKey(id), multipartId).uploadPart(9999, new Uint8Array(1));
    return true;
  } catch {
    return false;
  }
}

describe("tus discovery and creation", () => {
  it("OPTIONS advertises the version, extensions, largest size and checksums, and answers a browser's preflight without credentials", async () => {
    const res = await exports.default.fetch(
      new Request(ENDPOINT, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, tus-resumable, upload-length, upload-metadata" } }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("tus-resumable")).toBe("1.0.0");
    expect(res.headers.get("tus-version")).toBe("1.0.0");
    expect(res.headers.get("tus-extension")!.split(",")).toEqual(["creation", "creation-with-upload", "termination", "expiration", "checksum"]);
    expect(res.headers.get("tus-max-size")).toBe(String(PLAN_LIMITS.pro.maxUploadBytes));
    expect(res.headers.get("tus-checksum-algorithm")).toBe("sha1,sha256");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    for (const header of ["authorization", "tus-resumable", "upload-length", "upload-metadata", "upload-offset", "upload-checksum"]) expect(res.headers.get("access-control-allow-headers")).toContain(header);
    for (const header of ["location", "upload-offset", "upload-expires", "tus-resumable"]) expect(res.headers.get("access-control-expose-headers")).toContain(header);
    // The same on an upload's URL (tus-js-client's preflight before a PATCH).
    expect((await exports.default.fetch(new Request(`${ENDPOINT}/upl_x`, { method: "OPTIONS" }))).status).toBe(204);
  });

  it("refuses a request without Tus-Resumable: 1.0.0 with 412 and the version it speaks", async () => {
    const { key } = await newKey();
    const res = await exports.default.fetch(new Request(ENDPOINT, { method: "POST", headers: { authorization: `Bearer ${key}`, "upload-length": "10" } }));
    expect(res.status).toBe(412);
    expect(res.headers.get("tus-version")).toBe("1.0.0");
    expect(((await res.json()) as any).error.code).toBe("tus_version_unsupported");
  });

  it("creates an upload: 201 with Location ending in its upl_ id, Upload-Expires, a D1 row; HEAD gives offset 0, length and metadata", async () => {
    const { key, orgId } = await newKey();
    const before = Date.now();
    const { res, url, id } = await create(key, 1234);
    expect(res.status).toBe(201);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/v1\/uploads\/tus\/upl_[A-Za-z0-9]{24}$/);
    expect(res.headers.get("tus-resumable")).toBe("1.0.0");
    const expires = Date.parse(res.headers.get("upload-expires")!);
    expect(expires).toBeGreaterThanOrEqual(Math.floor((before + TUNABLES.tus.unfinishedLifetimeMs) / 1000) * 1000);
    expect(res.headers.get("ratelimit-policy")).toBe(`"uploads-per-hour";q=${PLAN_LIMITS.pro.uploadsPerHour};w=3600`);
    expect(await row(id)).toMatchObject({ status: "pending", protocol: "tus", received: 0, multipart_id: null, lease_id: null });
    const org = await testEnv.DB.prepare("SELECT org_id, content_type, filename, size FROM uploads WHERE id = ?").bind(id).first();
    expect(org).toEqual({ org_id: orgId, content_type: "video/mp4", filename: "clip.mp4", size: 1234 });

    const head = await tus("HEAD", url, { key });
    expect(head.status).toBe(200);
    expect(head.headers.get("upload-offset")).toBe("0");
    expect(head.headers.get("upload-length")).toBe("1234");
    expect(head.headers.get("cache-control")).toBe("no-store");
    expect(head.headers.get("upload-metadata")).toBe(metadata("clip.mp4", "video/mp4"));
    expect(head.headers.get("upload-expires")).toBe(res.headers.get("upload-expires"));
    // The same upload through the uploads API.
    expect((await call("GET", `/v1/uploads/${id}`, { key })).json).toMatchObject({ id, status: "pending", protocol: "tus", received: 0, size: 1234 });
  });

  it.each([
    ["Upload-Length", {}, { "upload-length": "" }],
    ["Upload-Length", { "upload-defer-length": "1" }, {}],
    ["Upload-Metadata.filetype", { "upload-metadata": metadata("notes.txt", "text/plain") }, {}],
    ["Upload-Metadata.filename", { "upload-metadata": metadata("../x.mp4", "video/mp4") }, {}],
    ["Upload-Metadata.filename", { "upload-metadata": "filename" + " !!" }, {}],
    ["Upload-Metadata", { "upload-metadata": `filename ${b64("a.mp4")},filename ${b64("b.mp4")}` }, {}],
  ])("refuses a creation with a bad %s with 400 naming it", async (path, headers, drop) => {
    const { key } = await newKey();
    const sent: Record<string, string> = { "upload-length": "100", "upload-metadata": metadata("a.mp4", "video/mp4"), ...headers };
    for (const name of Object.keys(drop)) delete sent[name];
    const res = await tus("POST", "", { key, headers: sent });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.details[0].path).toBe(path);
  });

  it("takes the media type from the file name when Upload-Metadata names none (as Uppy may send it)", async () => {
    const { key } = await newKey();
    const res = await tus("POST", "", { key, headers: { "upload-length": "10", "upload-metadata": `name ${b64("scan.PDF")}` } });
    expect(res.status).toBe(201);
    const id = res.headers.get("location")!.split("/").pop()!;
    expect((await call("GET", `/v1/uploads/${id}`, { key })).json).toMatchObject({ filename: "scan.PDF", contentType: "application/pdf" });
  });

  it("refuses an upload larger than the plan's with 413, and a request without credentials with 401", async () => {
    const free = await newKey({ plan: "free" });
    const res = await tus("POST", "", { key: free.key, headers: { "upload-length": String(PLAN_LIMITS.free.maxUploadBytes + 1), "upload-metadata": metadata("big.mp4", "video/mp4") } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("free plan") });
    expect((await tus("POST", "", { headers: { "upload-length": "10" } })).status).toBe(401);
  });
});

describe("tus PATCH", () => {
  it("buffers small PATCHes: full parts of exactly partBytes go to R2 multipart, the rest waits in the tail object, the last PATCH completes the object", async () => {
    const { key } = await newKey();
    const size = 2 * PART + 1234;
    const bytes = randomBytes(size);
    const { url, id } = await create(key, size);
    // Sizes that never line up with a part: 3 MB, 3 MB (crosses the first part), 1 B, the rest.
    const cuts = [3_000_000, 6_000_000, 6_000_001, size];
    let offset = 0;
    for (const end of cuts) {
      const res = await patch(key, url, offset, bytes.slice(offset, end));
      expect(res.status).toBe(204);
      expect(res.headers.get("upload-offset")).toBe(String(end));
      offset = end;
      const state = (await row(id))!;
      if (end === size) break;
      expect(res.headers.get("upload-expires")).toBeTruthy();
      const parts = JSON.parse(state.parts ?? "[]") as { partNumber: number }[];
      expect(state.received).toBe(end);
      expect(parts.map((p) => p.partNumber)).toEqual(Array.from({ length: Math.floor(end / PART) }, (_, i) => i + 1));
      expect(await tails(id)).toEqual([uploadTailKey(id, parts.length)]);
      const tail = await testEnv.OUTPUTS.get(uploadTailKey(id, parts.length));
      expect(tail?.size).toBe(end - parts.length * PART);
      expect(await fingerprint(await tail!.arrayBuffer())).toBe(await fingerprint(bytes.slice(parts.length * PART, end)));
      expect((await tus("HEAD", url, { key })).headers.get("upload-offset")).toBe(String(end));
    }
    expect(await row(id)).toMatchObject({ status: "uploaded", received: size, multipart_id: null, parts: null, lease_id: null });
    const object = await testEnv.OUTPUTS.get(uploadKey(id));
    expect(object?.size).toBe(size);
    expect(object?.httpMetadata?.contentType).toBe("video/mp4");
    expect(await fingerprint(await object!.arrayBuffer())).toBe(await fingerprint(bytes));
    // R2's multipart ETag names the part count: 2 full parts and the last.
    expect(object!.etag).toMatch(/-3$/);
    expect(await tails(id)).toEqual([]);
    const head = await tus("HEAD", url, { key });
    expect(head.headers.get("upload-offset")).toBe(String(size));
    expect(head.headers.get("upload-expires")).toBeNull();
    expect((await call("GET", `/v1/uploads/${id}`, { key })).json).toMatchObject({ status: "uploaded", protocol: "tus", received: size });
    // A retried last PATCH whose answer was lost: 204 at the end, nothing written.
    expect((await patch(key, url, size, new Uint8Array())).status).toBe(204);
  });

  it("answers 409 to a PATCH at another offset, 415 to another Content-Type, 413 past Upload-Length, and keeps nothing of them", async () => {
    const { key, orgId } = await newKey();
    const { url, id } = await create(key, 100);
    expect((await patch(key, url, 0, randomBytes(40))).status).toBe(204);
    const behind = await patch(key, url, 0, randomBytes(10));
    expect(behind.status).toBe(409);
    expect(((await behind.json()) as any).error).toMatchObject({ code: "upload_offset_mismatch", message: expect.stringContaining("is at 40") });
    expect((await patch(key, url, 50, randomBytes(10))).status).toBe(409);
    expect((await patch(key, url, 40, randomBytes(10), { "content-type": "application/octet-stream" })).status).toBe(415);
    expect((await patch(key, url, 40, randomBytes(61))).status).toBe(413);
    expect((await row(id))!.received).toBe(40);
    // Not finished: no job takes it yet.
    const early = await call("POST", "/v1/jobs", { key, body: { type: "compress-video", input: `upload:${id}` } });
    expect(early.json.error.details).toEqual([{ path: "input", message: `upload ${id} has 40 of its 100 bytes; send the rest (PATCH from its offset) first` }]);
    expect((await patch(key, url, 40, randomBytes(60))).status).toBe(204);
    expect((await row(id))!.status).toBe("uploaded");
    // Bytes sent with a creation in another type are refused before anything is created.
    const count = () => testEnv.DB.prepare("SELECT count(*) AS n FROM uploads WHERE org_id = ?").bind(orgId).first("n");
    const before = await count();
    const wrongType = await tus("POST", "", { key, headers: { "upload-length": "3", "upload-metadata": metadata("a.mp4", "video/mp4"), "content-type": "application/json" }, body: "abc" });
    expect(wrongType.status).toBe(415);
    expect(await count()).toBe(before);
  });

  it("a creation whose bytes fail leaves no upload holding an open place: bad headers refused before the row, a failed body terminates it", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const rows = () => testEnv.DB.prepare("SELECT count(*) AS n FROM uploads WHERE org_id = ?").bind(orgId).first<number>("n");
    const open = () => testEnv.DB.prepare("SELECT count(*) AS n FROM uploads WHERE org_id = ? AND status = 'pending' AND expires_at > ?").bind(orgId, Date.now()).first<number>("n");
    const withBytes = (size: number, body: BodyInit, headers: Record<string, string> = {}) =>
      tus("POST", "", { key, body, headers: { "upload-length": String(size), "upload-metadata": metadata("a.mp4", "video/mp4"), "content-type": "application/offset+octet-stream", ...headers } });
    const bytes = randomBytes(1000);
    // Content-Length past Upload-Length, an unknown checksum algorithm: refused before anything is created.
    expect((await withBytes(999, bytes)).status).toBe(413);
    expect((await withBytes(1000, bytes, { "upload-checksum": `md5 ${btoa("x")}` })).status).toBe(400);
    expect(await rows()).toBe(0);
    // Failures only the body shows (a checksum mismatch, a stream longer than declared): the row is terminated and its bytes discarded.
    const mismatch = await withBytes(1000, bytes, { "upload-checksum": `sha1 ${await digest("SHA-1", bytes.slice(1))}` });
    expect(mismatch.status).toBe(460);
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(bytes), controller.close()) });
    expect((await withBytes(500, stream)).status).toBe(413);
    expect(await rows()).toBe(2);
    expect(await open()).toBe(0);
    for (const { id } of (await testEnv.DB.prepare("SELECT id FROM uploads WHERE org_id = ?").bind(orgId).all<{ id: string }>()).results) {
      expect(await tails(id)).toEqual([]);
    }
    // Every open place is still there.
    for (let i = 0; i < PLAN_LIMITS.free.openUploads; i++) expect((await create(key, 10)).res.status).toBe(201);
  });

  it("a body that runs past Upload-Length after full parts were kept answers 413 with the offset they reached", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(PART + 500);
    const { url, id } = await create(key, bytes.byteLength);
    // No Content-Length (a stream): the overflow shows only past the first part, which was kept.
    const long = new Uint8Array(PART + 1000);
    long.set(bytes);
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(long), controller.close()) });
    const res = await patch(key, url, 0, stream);
    expect(res.status).toBe(413);
    expect(res.headers.get("upload-offset")).toBe(String(PART));
    expect(((await res.json()) as any).error.message).toContain(`the upload is at offset ${PART}, send at most 500 bytes from there`);
    expect((await row(id))!.received).toBe(PART);
    expect((await tus("HEAD", url, { key })).headers.get("upload-offset")).toBe(String(PART));
    expect((await patch(key, url, PART, bytes.slice(PART))).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
  });

  it("refuses a second PATCH while one is writing (423, nothing interleaved), then takes the next at the first's end", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(300_000);
    const { url, id } = await create(key, bytes.byteLength);
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
    push.enqueue(bytes.slice(0, 100_000));
    const first = patch(key, url, 0, body);
    await waitFor(async () => ((await row(id))?.lease_id ? true : undefined), "the first PATCH's lease");
    const second = await patch(key, url, 0, bytes.slice(0, 1000));
    expect(second.status).toBe(423);
    expect(((await second.json()) as any).error.code).toBe("upload_locked");
    expect((await tus("DELETE", url, { key })).status).toBe(423);
    push.enqueue(bytes.slice(100_000, 200_000));
    push.close();
    const done = await first;
    expect(done.status).toBe(204);
    expect(done.headers.get("upload-offset")).toBe("200000");
    expect((await patch(key, url, 200_000, bytes.slice(200_000))).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
  });

  it("keeps what arrived of a body cut off midway, and the upload resumes from there", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(PART + 500_000);
    const { url, id } = await create(key, bytes.byteLength);
    // The connection breaks when the route asks for more than its first 700,000 bytes: those
    // were read by then, however slow the machine.
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>(
      { pull: (controller) => (pulls++ === 0 ? controller.enqueue(bytes.slice(0, 700_000)) : controller.error(new Error("connection reset"))) },
      { highWaterMark: 0 },
    );
    await patch(key, url, 0, body).catch((error: unknown) => error);
    expect(pulls).toBe(2);
    const state = await waitFor(async () => {
      const r = await row(id);
      return r && !r.lease_id ? r : undefined;
    }, "the cut PATCH to give its lease back");
    expect(state.received).toBe(700_000);
    const offset = Number((await tus("HEAD", url, { key })).headers.get("upload-offset"));
    expect(offset).toBe(700_000);
    expect((await patch(key, url, offset, bytes.slice(offset))).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
  });

  it("verifies Upload-Checksum (sha1, sha256): a mismatch is 460 and keeps nothing, an unknown algorithm 400", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(PART + 1000);
    const { url, id } = await create(key, bytes.byteLength);
    const first = bytes.slice(0, 4000);
    const good = await patch(key, url, 0, first, { "upload-checksum": `sha1 ${await digest("SHA-1", first)}` });
    expect(good.status).toBe(204);
    // A body over a part: the part is sent to R2 but not counted until the checksum is known.
    const rest = bytes.slice(4000);
    const bad = await patch(key, url, 4000, rest, { "upload-checksum": `sha256 ${await digest("SHA-256", bytes.slice(0, rest.byteLength))}` });
    expect(bad.status).toBe(460);
    expect(((await bad.json()) as any).error.code).toBe("checksum_mismatch");
    expect(await row(id)).toMatchObject({ received: 4000, status: "pending" });
    expect(JSON.parse((await row(id))!.parts ?? "[]")).toEqual([]);
    expect((await tus("HEAD", url, { key })).headers.get("upload-offset")).toBe("4000");
    expect((await patch(key, url, 4000, rest, { "upload-checksum": `md5 ${btoa("x")}` })).status).toBe(400);
    expect((await patch(key, url, 4000, rest, { "upload-checksum": `sha256 ${await digest("SHA-256", rest)}` })).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
  });
});

/**
 * D1 whose `nth` statement (1 = the first) matching `match` fails (as a Worker that dies or
 * loses D1 right there); every other statement runs.
 */
function d1FailingOnce(match: RegExp, nth = 1): D1Database {
  let seen = 0;
  return new Proxy(testEnv.DB, {
    get(target, property) {
      if (property === "prepare") {
        return (query: string) => {
          if (!match.test(query) || ++seen !== nth) return target.prepare(query);
          const broken: any = { bind: () => broken, run: () => Promise.reject(new Error("D1 failed")), all: () => Promise.reject(new Error("D1 failed")), raw: () => Promise.reject(new Error("D1 failed")), first: () => Promise.reject(new Error("D1 failed")) };
          return broken;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** R2 with hooks: `before(method)` runs before each bucket or multipart call, and may throw to make it fail; `after(method, result)` sees what it answered. */
function r2Watched(before: (method: string) => void | Promise<void>, after: (method: string, result: unknown) => void = () => undefined): R2Bucket {
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          await before(String(property));
          const result = await value.apply(object, args);
          after(String(property), result);
          return property === "resumeMultipartUpload" || property === "createMultipartUpload" ? wrap(result) : result;
        };
      },
    });
  const bucket = wrap(testEnv.OUTPUTS);
  // resumeMultipartUpload is synchronous in R2's API: answer the wrapped object, not a promise of it.
  return new Proxy(bucket, {
    get(object, property) {
      if (property === "resumeMultipartUpload") return (key: string, id: string) => wrap(testEnv.OUTPUTS.resumeMultipartUpload(key, id) as unknown as object) as R2MultipartUpload;
      return Reflect.get(object, property);
    },
  });
}

/** One PATCH body through appendBody under a lease taken as a PATCH would, on the D1 and R2 given; the lease is let go after. */
async function appendDirect(id: string, body: Uint8Array, options: { db?: D1Database; bucket?: R2Bucket; checksum?: Checksum; clock?: () => number } = {}): Promise<AppendOutcome | Error> {
  const leaseId = `lease-${crypto.randomUUID()}`;
  await testEnv.DB.prepare("UPDATE uploads SET lease_id = ?, lease_expires_at = ? WHERE id = ?").bind(leaseId, Date.now() + TUNABLES.tus.leaseMs, id).run();
  const row = (await findUpload(database(testEnv.DB), id))!;
  const stream = new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(body), controller.close()) });
  try {
    return await appendBody({ db: database(options.db ?? testEnv.DB), bucket: options.bucket ?? testEnv.OUTPUTS, row, leaseId, clock: options.clock ?? Date.now }, stream, options.checksum);
  } catch (error) {
    return error as Error;
  } finally {
    await testEnv.DB.prepare("UPDATE uploads SET lease_id = NULL, lease_expires_at = NULL WHERE id = ? AND lease_id = ?").bind(id, leaseId).run();
  }
}

const sha256 = async (bytes: Uint8Array): Promise<Checksum> => ({ algorithm: "sha256", digest: new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)) });

describe("tus crash safety", () => {
  it("a checksummed PATCH across a part boundary that dies between its tail and its row leaves the upload as it was: the next PATCH stitches the right bytes", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(2 * PART + 1000);
    const { url, id } = await create(key, bytes.byteLength);
    expect((await patch(key, url, 0, bytes.slice(0, 1000))).status).toBe(204);
    // The body crosses the first part; the row's update after the tail is written fails (the
    // first update records the new multipart upload's id).
    const body = bytes.slice(1000, PART + 3000);
    const died = await appendDirect(id, body, { db: d1FailingOnce(/^update "uploads" set .*"received" = /, 2), checksum: await sha256(body) });
    expect(died).toBeInstanceOf(Error);
    expect(await row(id)).toMatchObject({ received: 1000, parts: "[]" });
    expect((await tus("HEAD", url, { key })).headers.get("upload-offset")).toBe("1000");
    // From the offset the row counts, the client sends it again and the rest.
    expect((await patch(key, url, 1000, bytes.slice(1000))).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
    expect(await tails(id)).toEqual([]);
  });

  it("a tail rewritten by another writer since this PATCH read it is not overwritten: the PATCH stops", async () => {
    const { key } = await newKey();
    const { url, id } = await create(key, 2 * PART);
    const first = randomBytes(1000);
    expect((await patch(key, url, 0, first)).status).toBe(204);
    const theirs = randomBytes(1500);
    theirs.set(first);
    const bucket = r2Watched(async (method) => {
      // Between this PATCH's read of the tail and its write, the PATCH that took over wrote it.
      if (method === "put") await testEnv.OUTPUTS.put(uploadTailKey(id, 0), theirs);
    });
    expect(await appendDirect(id, randomBytes(500), { bucket })).toEqual({ kind: "lease_lost" });
    expect((await row(id))!.received).toBe(1000);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadTailKey(id, 0)))!.arrayBuffer())).toBe(await fingerprint(theirs));
  });

  it("a checksummed PATCH renews its lease after each part, and stops writing when another PATCH took it", async () => {
    const { key } = await newKey();
    const { id } = await create(key, 4 * PART);
    const body = randomBytes(3 * PART);
    let partsSent = 0;
    const bucket = r2Watched(async (method) => {
      if (method !== "uploadPart") return;
      // While the first part is being sent, another PATCH takes the lease (this one looked stalled).
      if (++partsSent === 1) await testEnv.DB.prepare("UPDATE uploads SET lease_id = 'thief', lease_expires_at = ? WHERE id = ?").bind(Date.now() + TUNABLES.tus.leaseMs, id).run();
    });
    const renewed: number[] = [];
    const watched = new Proxy(testEnv.DB, {
      get(target, property) {
        if (property === "prepare") return (query: string) => (/^update "uploads" set "lease_expires_at" = \? where/.test(query) && renewed.push(partsSent), target.prepare(query));
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    expect(await appendDirect(id, body, { db: watched, bucket, checksum: await sha256(body) })).toEqual({ kind: "lease_lost" });
    // One part went out, the renewal after it found the lease gone, and nothing more was sent.
    expect(partsSent).toBe(1);
    expect(renewed).toEqual([1]);
    expect(await row(id)).toMatchObject({ received: 0, lease_id: "thief" });
  });

  it("a completion whose object R2 finished but whose row was not updated is finished by the retried last PATCH", async () => {
    const { key } = await newKey();
    const bytes = randomBytes(PART + 1000);
    const { url, id } = await create(key, bytes.byteLength);
    expect((await patch(key, url, 0, bytes.slice(0, PART))).status).toBe(204);
    // The last bytes: R2 completes the multipart upload, then marking the row uploaded fails.
    expect(await appendDirect(id, bytes.slice(PART), { db: d1FailingOnce(/^update "uploads" set .*"status" = /) })).toBeInstanceOf(Error);
    expect(await row(id)).toMatchObject({ status: "pending", received: bytes.byteLength });
    expect((await testEnv.OUTPUTS.head(uploadKey(id)))?.size).toBe(bytes.byteLength);
    // tus clients retry the last PATCH (or HEAD and PATCH from the offset, the end).
    const retried = await patch(key, url, bytes.byteLength, new Uint8Array());
    expect(retried.status).toBe(204);
    expect(retried.headers.get("upload-offset")).toBe(String(bytes.byteLength));
    expect(await row(id)).toMatchObject({ status: "uploaded", multipart_id: null, lease_id: null });
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
    expect(await tails(id)).toEqual([]);
  });

  it("a multipart upload created by a PATCH that lost its lease before recording it is aborted, not left billed", async () => {
    const { key } = await newKey();
    const { id } = await create(key, 2 * PART);
    let multipartId: string | undefined;
    const bucket = r2Watched(
      async (method) => {
        if (method === "createMultipartUpload") await testEnv.DB.prepare("UPDATE uploads SET lease_id = 'thief', lease_expires_at = ? WHERE id = ?").bind(Date.now() + TUNABLES.tus.leaseMs, id).run();
      },
      (method, result) => {
        if (method === "createMultipartUpload") multipartId = (result as R2MultipartUpload).uploadId;
      },
    );
    expect(await appendDirect(id, randomBytes(PART + 10), { bucket })).toEqual({ kind: "lease_lost" });
    expect(multipartId).toBeTruthy();
    expect(await row(id)).toMatchObject({ multipart_id: null, lease_id: "thief" });
    expect(await multipartAlive(id, multipartId!)).toBe(false);
  });
});

describe("the finished upload as a job's input", () => {
  it("is refused when its bytes are another kind of media than it declares; bytes not recognized go on to the processor", async () => {
    const { key } = await newKey();
    const pdf = new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n");
    const declaredImage = await tus("POST", "", {
      key,
      headers: { "upload-length": String(pdf.byteLength), "upload-metadata": metadata("photo.jpg", "image/jpeg"), "content-type": "application/offset+octet-stream" },
      body: pdf,
    });
    expect(declaredImage.status).toBe(201);
    const id = declaredImage.headers.get("location")!.split("/").pop()!;
    const refused = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${id}` } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([{ path: "input", message: `upload ${id} declares image/jpeg but its bytes are a PDF; upload it again with its real type` }]);
    // Declared as what it is, the same bytes pass the check (and the processor judges the rest).
    const declaredPdf = await tus("POST", "", {
      key,
      headers: { "upload-length": String(pdf.byteLength), "upload-metadata": metadata("doc.pdf", "application/pdf"), "content-type": "application/offset+octet-stream" },
      body: pdf,
    });
    const pdfId = declaredPdf.headers.get("location")!.split("/").pop()!;
    expect((await call("POST", "/v1/jobs", { key, body: { type: "compress-pdf", input: `upload:${pdfId}` } })).status).toBe(201);
  });
});

describe("tus termination and expiry", () => {
  it("DELETE aborts the R2 parts and removes the tail; the upload is then 410", async () => {
    const { key } = await newKey();
    const { url, id } = await create(key, PART * 2);
    expect((await patch(key, url, 0, randomBytes(PART + 10))).status).toBe(204);
    const before = (await row(id))!;
    expect(await multipartAlive(id, before.multipart_id!)).toBe(true);
    expect(await tails(id)).toEqual([uploadTailKey(id, 1)]);
    const res = await tus("DELETE", url, { key });
    expect(res.status).toBe(204);
    expect(await multipartAlive(id, before.multipart_id!)).toBe(false);
    expect(await tails(id)).toEqual([]);
    const head = await tus("HEAD", url, { key });
    expect(head.status).toBe(410);
    expect((await patch(key, url, PART + 10, randomBytes(10))).status).toBe(410);
    expect((await call("POST", "/v1/jobs", { key, body: { type: "compress-video", input: `upload:${id}` } })).status).toBe(400);
  });

  /** An unfinished upload with one part in R2 and a tail, made to have expired a millisecond ago. */
  async function expiredWithAPart() {
    const { key } = await newKey();
    const { url, id } = await create(key, PART * 2);
    expect((await patch(key, url, 0, randomBytes(PART + 10))).status).toBe(204);
    const { multipart_id } = (await row(id))!;
    const now = Date.now();
    await testEnv.DB.prepare("UPDATE uploads SET expires_at = ? WHERE id = ?").bind(now - 1, id).run();
    return { key, url, id, multipart_id, now };
  }

  it("the cron aborts an unfinished upload past Upload-Expires: parts, tail and row", async () => {
    const { key, url, id, multipart_id, now } = await expiredWithAPart();
    expect((await tus("HEAD", url, { key })).status).toBe(410);
    expect(await cleanupUploads(database(testEnv.DB), testEnv.OUTPUTS, now)).toBeGreaterThanOrEqual(1);
    expect(await row(id)).toBeNull();
    expect(await multipartAlive(id, multipart_id!)).toBe(false);
    expect(await tails(id)).toEqual([]);
    expect((await tus("HEAD", url, { key })).status).toBe(404);
  });

  it("the cron keeps an expired upload whose parts R2 did not abort, and aborts them on its next run; R2's \"no such upload\" counts as aborted", async () => {
    const { key, url, id, multipart_id, now } = await expiredWithAPart();
    let failing = true;
    const flaky = r2Watched((method) => {
      if (method === "abort" && failing) throw new Error("R2 internal error");
    });
    await cleanupUploads(database(testEnv.DB), flaky, now);
    expect(await row(id)).toMatchObject({ multipart_id });
    expect(await multipartAlive(id, multipart_id!)).toBe(true);
    failing = false;
    await cleanupUploads(database(testEnv.DB), flaky, now);
    expect(await row(id)).toBeNull();
    expect(await multipartAlive(id, multipart_id!)).toBe(false);

    // An upload whose multipart upload R2 no longer knows is removed.
    const gone = await create(key, PART * 2);
    expect((await patch(key, gone.url, 0, randomBytes(PART + 10))).status).toBe(204);
    await testEnv.DB.prepare("UPDATE uploads SET expires_at = ? WHERE id = ?").bind(now - 1, gone.id).run();
    const unknown = r2Watched((method) => {
      if (method === "abort") throw new Error("abortMultipartUpload: The specified multipart upload does not exist. (10024)");
    });
    await cleanupUploads(database(testEnv.DB), unknown, now);
    expect(await row(gone.id)).toBeNull();
    expect(await tails(gone.id)).toEqual([]);
  });
});

describe("tus limits", () => {
  it("refuses unfinished uploads past the plan's at once with 429, Retry-After and RateLimit headers; a finished one frees its place", async () => {
    const { key } = await newKey({ plan: "free" });
    const open = [];
    for (let i = 0; i < PLAN_LIMITS.free.openUploads; i++) open.push(await create(key, 10));
    const refused = await create(key, 10);
    expect(refused.res.status).toBe(429);
    const body = (await refused.res.json()) as any;
    expect(body.error).toMatchObject({ code: "rate_limit_exceeded", message: expect.stringContaining(`${PLAN_LIMITS.free.openUploads} unfinished resumable uploads at once`) });
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.res.headers.get("ratelimit-policy")).toBe(`"open-uploads";q=${PLAN_LIMITS.free.openUploads}`);
    expect((await patch(key, open[0]!.url, 0, randomBytes(10))).status).toBe(204);
    expect((await create(key, 10)).res.status).toBe(201);
  });

  it("refuses uploads past the plan's per hour, direct or resumable, with the jobs' 429 form", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const now = Date.now();
    const limit = PLAN_LIMITS.free.uploadsPerHour;
    const inserts = Array.from({ length: limit }, (_, i) =>
      testEnv.DB.prepare("INSERT INTO uploads (id, org_id, mode, filename, content_type, size, status, created_at, expires_at) VALUES (?, ?, 'live', 'a.jpg', 'image/jpeg', 1, 'uploaded', ?, ?)").bind(
        `upl_hour${orgId.slice(-8)}${String(i).padStart(8, "0")}`,
        orgId,
        now - 3_000_000 + i,
        now + 3_600_000,
      ),
    );
    await testEnv.DB.batch(inserts);
    const refused = await create(key, 10);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get("ratelimit")).toMatch(/^"uploads-per-hour";r=0;t=\d+$/);
    const retryAfter = Number(refused.res.headers.get("retry-after"));
    // The oldest counted upload leaves the hour 600 s after now.
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(601);
    expect(((await refused.res.json()) as any).error).toMatchObject({ code: "rate_limit_exceeded", details: { limit, window: 3600, retryAfter } });
    const direct = await call("POST", "/v1/uploads", { key, body: { filename: "a.jpg", contentType: "image/jpeg", size: 10 } });
    expect(direct.status).toBe(429);
    expect(await testEnv.DB.prepare("SELECT count(*) AS n FROM uploads WHERE org_id = ?").bind(orgId).first("n")).toBe(limit);
  });
});

describe("tus from a browser", () => {
  it("the backend mints a token to finish an upload whose page token expired: the same upload only, creating none, its organization's only", async () => {
    const { key } = await newKey();
    const first = (await call("POST", "/v1/uploads/tus/tokens", { key })).json.token as string;
    const bytes = randomBytes(3000);
    const { url, id } = await create(first, bytes.byteLength);
    expect((await patch(first, url, 0, bytes.slice(0, 1000))).status).toBe(204);
    // A new page's token is another token: it does not see the upload.
    const fresh = (await call("POST", "/v1/uploads/tus/tokens", { key })).json.token as string;
    expect((await tus("HEAD", url, { key: fresh })).status).toBe(404);

    const minted = await call("POST", "/v1/uploads/tus/tokens", { key, body: { uploadId: id } });
    expect(minted.status).toBe(201);
    expect(minted.json).toMatchObject({ maxUploads: 0, maxBytes: bytes.byteLength, uploadUrl: url });
    const resume = minted.json.token as string;
    expect((await tus("HEAD", url, { key: resume })).headers.get("upload-offset")).toBe("1000");
    expect((await patch(resume, url, 1000, bytes.slice(1000))).status).toBe(204);
    expect(await fingerprint(await (await testEnv.OUTPUTS.get(uploadKey(id)))!.arrayBuffer())).toBe(await fingerprint(bytes));
    expect((await create(resume, 10)).res.status).toBe(403);

    // An upload the API key created can be handed to a page the same way.
    const byKey = await create(key, 10);
    const handed = (await call("POST", "/v1/uploads/tus/tokens", { key, body: { uploadId: byKey.id } })).json.token as string;
    expect((await patch(handed, byKey.url, 0, randomBytes(10))).status).toBe(204);
    expect(await row(byKey.id)).toMatchObject({ status: "uploaded", token_id: expect.any(String) });

    const stranger = await newKey();
    expect((await call("POST", "/v1/uploads/tus/tokens", { key: stranger.key, body: { uploadId: id } })).status).toBe(404);
    const mixed = await call("POST", "/v1/uploads/tus/tokens", { key, body: { uploadId: id, maxUploads: 2 } });
    expect(mixed.status).toBe(400);
    expect(mixed.json.error.details).toEqual([{ path: "maxUploads", message: "not with uploadId" }]);
  });

  it("a token creates at most its maxUploads (default 1, 403 past it) of at most its maxBytes (413), chosen by the backend within the plan", async () => {
    const { key } = await newKey({ plan: "free" });
    const minted = await call("POST", "/v1/uploads/tus/tokens", { key });
    expect(minted.json).toMatchObject({ maxUploads: 1, maxBytes: PLAN_LIMITS.free.maxUploadBytes });
    const one = minted.json.token as string;
    expect((await create(one, 10)).res.status).toBe(201);
    const spent = await create(one, 10);
    expect(spent.res.status).toBe(403);
    expect(((await spent.res.json()) as any).error).toMatchObject({ code: "forbidden", message: expect.stringContaining("may create 1 upload") });
    // The API key's own uploads are not held back by what a page did with its token.
    expect((await create(key, 10)).res.status).toBe(201);

    const capped = (await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxUploads: 2, maxBytes: 1000 } })).json.token as string;
    const large = await create(capped, 1001);
    expect(large.res.status).toBe(413);
    expect(((await large.res.json()) as any).error).toMatchObject({ code: "payload_too_large", details: { limit: 1000 } });
    expect((await create(capped, 1000)).res.status).toBe(201);
    expect((await create(capped, 1000)).res.status).toBe(201);
    expect((await create(capped, 10)).res.status).toBe(403);

    // Created at once, they cannot pass the cap together.
    const racing = (await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxUploads: 1 } })).json.token as string;
    const statuses = (await Promise.all([create(racing, 10), create(racing, 10), create(racing, 10)])).map((r) => r.res.status).sort();
    expect(statuses).toEqual([201, 403, 403]);

    const tooLarge = await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxBytes: PLAN_LIMITS.free.maxUploadBytes + 1 } });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.json.error.details).toEqual([{ path: "maxBytes", message: `at most ${PLAN_LIMITS.free.maxUploadBytes} on the free plan` }]);
    expect((await call("POST", "/v1/uploads/tus/tokens", { key, body: { maxUploads: 0 } })).json.error.details[0].path).toBe("maxUploads");
  });

  it("a backend's upload token creates and writes uploads (CORS readable), only its own, and can do nothing else", async () => {
    const { key, orgId } = await newKey();
    const minted = await call("POST", "/v1/uploads/tus/tokens", { key });
    expect(minted.status).toBe(201);
    expect(minted.json).toMatchObject({ token: expect.stringMatching(/^ut_/), endpoint: ENDPOINT, expiresAt: expect.any(String) });
    const token = minted.json.token as string;
    const image = new Uint8Array(await (await fetch(media("/image?w=64&h=48"))).arrayBuffer());
    const created = await tus("POST", "", {
      key: token,
      headers: { origin: "https://app.example", "upload-length": String(image.byteLength), "upload-metadata": metadata("photo.jpg", "image/jpeg"), "content-type": "application/offset+octet-stream" },
      body: image,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("upload-offset")).toBe(String(image.byteLength));
    expect(created.headers.get("access-control-allow-origin")).toBe("*");
    expect(created.headers.get("access-control-expose-headers")).toContain("location");
    const id = created.headers.get("location")!.split("/").pop()!;
    expect(await row(id)).toMatchObject({ status: "uploaded", token_id: expect.any(String) });
    expect((await testEnv.DB.prepare("SELECT org_id FROM uploads WHERE id = ?").bind(id).first("org_id"))).toBe(orgId);

    // Another token of the same organization does not see it; the API key does.
    const other = (await call("POST", "/v1/uploads/tus/tokens", { key })).json.token as string;
    expect((await tus("HEAD", `/${id}`, { key: other })).status).toBe(404);
    expect((await tus("HEAD", `/${id}`, { key })).status).toBe(200);
    // The token is no API key, and cannot mint tokens.
    expect((await call("GET", `/v1/uploads/${id}`, { key: token })).status).toBe(401);
    expect((await call("POST", "/v1/jobs", { key: token, body: { type: "compress-image", input: `upload:${id}` } })).status).toBe(401);
    expect((await call("POST", "/v1/uploads/tus/tokens", { key: token })).status).toBe(401);
    const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
    const refused = await tus("POST", "", { key: tampered, headers: { "upload-length": "10", "upload-metadata": metadata("a.jpg", "image/jpeg") } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");

    // The backend runs a job on what the browser sent.
    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${id}`, options: { format: "png" } } });
    expect(job.status).toBe(201);
    const { job: done } = await waitForJob(key, job.json.id);
    expect(done).toMatchObject({ status: "completed", result: { format: "png", width: 64, height: 48, source: { size: image.byteLength } } });
    const output = await workerFetch(done.result.url);
    const probed = (await (await fetch(media("/inspect"), { method: "POST", body: await output.arrayBuffer() })).json()) as Record<string, unknown>;
    expect(probed).toMatchObject({ format: "png", width: 64, height: 48 });
  });
});

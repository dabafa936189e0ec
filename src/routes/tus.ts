// /v1/uploads/tus: the tus 1.0.0 wire protocol (tus.io/protocols/resumable-upload: core,
// creation, creation-with-upload, termination, expiration, checksum), open to browsers
// (CORS). Who may upload and how much: tus-access.ts; the bytes' path into R2:
// src/files/tus.ts; docs/api.md: resumable uploads.
import type { Context } from "hono";
import { Hono } from "hono";
import { createUploadRequest, TUS, UPLOAD_EXTENSIONS } from "../contract/uploads.ts";
import { database } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { findUpload, releaseUploadLease, takeUploadLease, terminateUpload } from "../db/uploads.ts";
import { uploadKey } from "../files/r2-keys.ts";
import { appendBody, discardUnfinished, type Checksum } from "../files/tus.ts";
import { fromBase64url, newId, randomToken } from "../lib/crypto.ts";
import { AppError, invalidInput } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { authenticate, checkUploadSize, findCallerUpload, insertAdmitted, uploadTokenRoutes, type TusEnv } from "./tus-access.ts";

const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "tus-resumable",
  "upload-length",
  "upload-metadata",
  "upload-offset",
  "upload-checksum",
  "upload-defer-length",
  "upload-concat",
  "x-http-method-override",
  "x-requested-with",
  "x-request-id",
].join(", ");

/** What a browser's script may read of an answer: the protocol's headers, Location and the limits'. */
const EXPOSED_HEADERS = [
  "location",
  "upload-offset",
  "upload-length",
  "upload-metadata",
  "upload-expires",
  "tus-resumable",
  "tus-version",
  "tus-extension",
  "tus-max-size",
  "tus-checksum-algorithm",
  "x-request-id",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
].join(", ");

/**
 * Every answer, errors included, says the protocol version and may be read cross-origin: the
 * credentials are a header (never a cookie), so any origin is safe to allow.
 */
function protocolHeaders(headers: Headers): void {
  headers.set("tus-resumable", TUS.version);
  headers.set("access-control-allow-origin", "*");
  headers.set("access-control-expose-headers", EXPOSED_HEADERS);
}

function capabilityHeaders(): Record<string, string> {
  return {
    "tus-version": TUS.version,
    "tus-extension": TUS.extensions.join(","),
    "tus-max-size": String(Math.max(...Object.values(PLAN_LIMITS).map((plan) => plan.maxUploadBytes))),
    "tus-checksum-algorithm": TUS.checksumAlgorithms.join(","),
  };
}

const httpDate = (ms: number) => new Date(ms).toUTCString();

/** `Upload-Metadata`: comma-separated `key base64value` pairs (a key may have no value). */
function parseMetadata(header: string | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  if (!header?.trim()) return pairs;
  for (const item of header.split(",")) {
    const [key, value, extra] = item.trim().split(" ");
    if (!key || extra !== undefined || pairs.has(key)) throw invalidInput("Upload-Metadata is malformed: comma-separated `key base64value` pairs, each key once", [{ path: "Upload-Metadata", message: "malformed" }]);
    try {
      pairs.set(key, value === undefined ? "" : new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(fromBase64url(value)));
    } catch {
      throw invalidInput(`Upload-Metadata: the value of ${key} is not base64 of UTF-8 text`, [{ path: `Upload-Metadata.${key}`, message: "not base64 of UTF-8 text" }]);
    }
  }
  return pairs;
}

function encodeMetadata(row: UploadRow): string {
  const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  return `filename ${b64(row.filename)},filetype ${b64(row.contentType)}`;
}

/** A non-negative integer header, or undefined when absent; 400 when it is something else. */
function integerHeader(c: Context, name: string): number | undefined {
  const value = c.req.header(name);
  if (value === undefined) return undefined;
  if (!/^\d{1,16}$/.test(value.trim())) throw invalidInput(`${name} must be a non-negative integer`, [{ path: name, message: "not a non-negative integer" }]);
  return Number(value.trim());
}

/** `Upload-Checksum: <algorithm> <base64 digest>` (checksum extension), when sent. */
function parseChecksum(header: string | undefined): Checksum | undefined {
  if (header === undefined) return undefined;
  const [algorithm, digest] = header.trim().split(" ");
  if (algorithm !== "sha1" && algorithm !== "sha256") {
    throw invalidInput(`Upload-Checksum: the algorithm must be one of ${TUS.checksumAlgorithms.join(", ")}`, [{ path: "Upload-Checksum", message: "unsupported algorithm" }]);
  }
  try {
    return { algorithm, digest: fromBase64url(digest ?? "") };
  } catch {
    throw invalidInput("Upload-Checksum: the digest is not base64", [{ path: "Upload-Checksum", message: "not base64" }]);
  }
}

/** A body's headers, checked before anything is written: its length within Upload-Length (413) and its Upload-Checksum (400). */
function checkBodyHeaders(c: Context<TusEnv>, size: number, offset: number): Checksum | undefined {
  const checksum = parseChecksum(c.req.header("upload-checksum"));
  const length = integerHeader(c, "content-length");
  if (length !== undefined && offset + length > size) {
    throw new AppError("payload_too_large", `the body's ${length} bytes at offset ${offset} run past Upload-Length ${size}`);
  }
  return checksum;
}

/**
 * Writes a PATCH body (or a creation's) under the upload's lease. Run through waitUntil: a
 * client that hangs up mid-body must not also cut short the write of what did arrive.
 */
async function writeBody(c: Context<TusEnv>, row: Pick<UploadRow, "id" | "size">, offset: number): Promise<{ received: number; finished: boolean }> {
  const db = database(c.env.DB);
  const now = Date.now();
  const checksum = checkBodyHeaders(c, row.size, offset);
  const leaseId = randomToken(16);
  if (!(await takeUploadLease(db, row.id, leaseId, offset, now, TUNABLES.tus.leaseMs))) {
    const current = await findCallerUpload(db, c.get("tus"), row.id, now);
    if (current.status === "uploaded" || current.received !== offset) {
      throw new AppError("upload_offset_mismatch", `Upload-Offset is ${offset} but upload ${row.id} is at ${current.status === "uploaded" ? current.size : current.received}; HEAD it and go on from there`);
    }
    throw new AppError("upload_locked", `another PATCH is writing upload ${row.id}; try again when it ends`);
  }
  const work = (async () => {
    try {
      // Read again under the lease: the parts and multipart upload are what the last holder recorded.
      const held = (await findUpload(db, row.id))!;
      return await appendBody({ db, bucket: c.env.OUTPUTS, row: held, leaseId, clock: Date.now }, c.req.raw.body, checksum);
    } finally {
      await releaseUploadLease(db, row.id, leaseId);
    }
  })();
  c.executionCtx.waitUntil(work.catch(() => undefined));
  const outcome = await work;
  switch (outcome.kind) {
    case "kept":
      return outcome;
    case "checksum_mismatch":
      throw new AppError("checksum_mismatch", `the body does not match Upload-Checksum; none of it was kept, send it again from offset ${outcome.received}`);
    case "too_long":
      throw new AppError("payload_too_large", `the body runs past Upload-Length ${row.size}; the upload is at offset ${outcome.received}, send at most ${row.size - outcome.received} bytes from there`, {
        headers: { "upload-offset": String(outcome.received) },
      });
    case "lease_lost":
      throw new AppError("upload_locked", `another PATCH took over upload ${row.id}; HEAD it and go on from its offset`);
  }
}

/** tus answers: 204 with the offset reached, and the expiry while unfinished (expiration extension). */
function offsetHeaders(row: UploadRow, received: number, finished: boolean): Record<string, string> {
  return {
    "upload-offset": String(received),
    ...(finished || row.status === "uploaded" ? {} : { "upload-expires": httpDate(Date.now() + TUNABLES.tus.unfinishedLifetimeMs) }),
  };
}

async function head(c: Context<TusEnv>): Promise<Response> {
  const row = await findCallerUpload(database(c.env.DB), c.get("tus"), c.req.param("id")!, Date.now());
  const done = row.status === "uploaded";
  return c.body(null, 200, {
    "upload-offset": String(done ? row.size : row.received),
    "upload-length": String(row.size),
    "upload-metadata": encodeMetadata(row),
    "cache-control": "no-store",
    ...(done ? {} : { "upload-expires": httpDate(row.expiresAt) }),
  });
}

async function patch(c: Context<TusEnv>): Promise<Response> {
  const contentType = c.req.header("content-type")?.split(";")[0]!.trim().toLowerCase();
  if (contentType !== TUS.patchContentType) {
    throw new AppError("unsupported_media_type", `send a PATCH's bytes with Content-Type: ${TUS.patchContentType} (got ${contentType ? JSON.stringify(contentType.slice(0, 100)) : "none"})`);
  }
  const offset = integerHeader(c, "upload-offset");
  if (offset === undefined) throw invalidInput("send Upload-Offset: the offset the bytes start at (HEAD the upload for it)", [{ path: "Upload-Offset", message: "required" }]);
  const row = await findCallerUpload(database(c.env.DB), c.get("tus"), c.req.param("id")!, Date.now());
  if (row.status === "uploaded") {
    // A retried last PATCH whose answer was lost: nothing to write, the offset is the end.
    if (offset === row.size && !Number(c.req.header("content-length") ?? 0)) return c.body(null, 204, offsetHeaders(row, row.size, true));
    throw new AppError("upload_offset_mismatch", `upload ${row.id} is complete (${row.size} bytes); Upload-Offset ${offset} is past nothing left to send`);
  }
  if (offset !== row.received) {
    throw new AppError("upload_offset_mismatch", `Upload-Offset is ${offset} but upload ${row.id} is at ${row.received}; HEAD it and go on from there`);
  }
  const written = await writeBody(c, row, offset);
  return c.body(null, 204, offsetHeaders(row, written.received, written.finished));
}

async function terminate(c: Context<TusEnv>): Promise<Response> {
  const db = database(c.env.DB);
  const now = Date.now();
  const row = await findCallerUpload(db, c.get("tus"), c.req.param("id")!, now);
  if (!(await terminateUpload(db, row.id, now))) throw new AppError("upload_locked", `a PATCH is writing upload ${row.id}; terminate it when the PATCH ends`);
  try {
    await discardUnfinished(c.env.OUTPUTS, row);
    if (row.status === "uploaded") await c.env.OUTPUTS.delete(uploadKey(row.id));
  } catch (error) {
    // Terminated all the same (it expired now): the cron aborts what R2 did not here.
    log("warn", "terminated upload's bytes not discarded; the cron tries again", { upload: row.id, error: error instanceof Error ? error.message : String(error) });
  }
  return c.body(null, 204);
}

/** `Upload-Length`: a non-negative integer (else 400) the caller may upload (else 413, checkUploadSize). */
function uploadLength(c: Context<TusEnv>): number {
  if (c.req.header("upload-defer-length") !== undefined || c.req.header("upload-length") === undefined) {
    throw invalidInput("send Upload-Length: the file's size in bytes (deferred lengths are not supported)", [{ path: "Upload-Length", message: "required" }]);
  }
  const value = c.req.header("upload-length")!.trim();
  if (!/^\d+$/.test(value)) throw invalidInput("Upload-Length must be a non-negative integer", [{ path: "Upload-Length", message: "not a non-negative integer" }]);
  const size = Number(value);
  checkUploadSize(c.get("tus"), size, value);
  return size;
}

async function create(c: Context<TusEnv>): Promise<Response> {
  const now = Date.now();
  const size = uploadLength(c);
  const metadata = parseMetadata(c.req.header("upload-metadata"));
  const filename = metadata.get("filename") ?? metadata.get("name");
  const extension = filename?.includes(".") ? filename.slice(filename.lastIndexOf(".") + 1).toLowerCase() : undefined;
  const contentType = metadata.get("filetype") || metadata.get("contentType") || metadata.get("type") || (extension ? UPLOAD_EXTENSIONS[extension] : undefined);
  const parsed = createUploadRequest.safeParse({ filename, contentType, size });
  if (!parsed.success) {
    const where: Record<string, string> = { filename: "Upload-Metadata.filename", contentType: "Upload-Metadata.filetype", size: "Upload-Length" };
    const details = parsed.error.issues.map((issue) => ({ path: where[String(issue.path[0])] ?? "Upload-Metadata", message: issue.message }));
    throw invalidInput(`${details[0]!.path}: ${details[0]!.message}`, details);
  }
  // creation-with-upload: the first bytes may come with the creation, as a PATCH's would.
  const declared = Number(c.req.header("content-length") ?? 0);
  const bodyType = c.req.header("content-type")?.split(";")[0]!.trim().toLowerCase();
  const withBytes = Boolean(c.req.raw.body) && (declared > 0 || bodyType === TUS.patchContentType);
  if (withBytes && bodyType !== TUS.patchContentType) {
    throw new AppError("unsupported_media_type", `send bytes with the creation as Content-Type: ${TUS.patchContentType}`);
  }
  // Refused before a row exists: a creation that fails after it would hold an open place.
  if (withBytes) checkBodyHeaders(c, size, 0);
  const db = database(c.env.DB);
  const id = newId("upl");
  const row = { id, ...parsed.data, status: "pending" as const, protocol: "tus" as const, received: 0, createdAt: now, expiresAt: now + TUNABLES.tus.unfinishedLifetimeMs };
  const admitted = await insertAdmitted(db, c.get("tus"), row, now);
  const headers: Record<string, string> = { ...admitted, location: `${new URL(c.req.url).origin}${TUS.path}/${id}`, "upload-expires": httpDate(row.expiresAt) };
  if (withBytes) {
    try {
      const written = await writeBody(c, row, 0);
      Object.assign(headers, offsetHeaders(row as UploadRow, written.received, written.finished));
    } catch (error) {
      // The client has no Location to resume or delete it by: the row is terminated (its
      // open place freed) and its bytes discarded, and the client creates it again.
      // Best effort: what fails here the cron finishes (the row expired now).
      await (async () => {
        if (await terminateUpload(db, id, Date.now())) await discardUnfinished(c.env.OUTPUTS, { id, multipartId: (await findUpload(db, id))?.multipartId ?? null });
      })().catch(() => undefined);
      throw error;
    }
  }
  return c.body(null, 201, headers);
}

/** X-HTTP-Method-Override (tus core: for environments that cannot send PATCH or DELETE). */
function overridden(c: Context<TusEnv>): Promise<Response> {
  const method = c.req.header("x-http-method-override")?.toUpperCase();
  if (method === "PATCH") return patch(c);
  if (method === "DELETE") return terminate(c);
  if (method === "HEAD" || method === "GET") return head(c);
  throw invalidInput("POST on an upload's URL needs X-HTTP-Method-Override: PATCH, DELETE or HEAD", [{ path: "X-HTTP-Method-Override", message: "required" }]);
}

function discovery(c: Context<TusEnv>): Response {
  return c.body(null, 204, {
    ...capabilityHeaders(),
    "access-control-allow-methods": "POST, GET, HEAD, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers": ALLOWED_HEADERS,
    "access-control-max-age": "86400",
  });
}

export const tusRoutes = new Hono<TusEnv>()
  .use(async (c, next) => {
    await next();
    protocolHeaders(c.res.headers);
  })
  // Discovery and CORS preflight alike: no credentials, no Tus-Resumable needed.
  .options("/", discovery)
  .options("/:id", discovery)
  .route("/", uploadTokenRoutes)
  .use(async (c, next) => {
    if (c.req.header("tus-resumable") !== TUS.version) {
      throw new AppError("tus_version_unsupported", `send Tus-Resumable: ${TUS.version} (the only version this server speaks)`, { headers: { "tus-version": TUS.version } });
    }
    await next();
  })
  .use(authenticate)
  .post("/", create)
  // Hono answers HEAD with the GET route, body dropped.
  .get("/:id", head)
  .patch("/:id", patch)
  .delete("/:id", terminate)
  .post("/:id", overridden);

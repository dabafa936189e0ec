// /v1/uploads/tus: resumable uploads over tus 1.0.0 (tus.io/protocols/resumable-upload: core,
// creation, creation-with-upload, termination, expiration, checksum), authenticated with
// the API key or a browser upload token, and open to browsers (CORS). The bytes' path into
// R2 is src/files/tus.ts; docs/api.md: resumable uploads.
import type { Context } from "hono";
import { Hono } from "hono";
import { apiKeyAuth, type AuthVariables } from "../auth/api-key.ts";
import { looksLikeUploadToken, signUploadToken, verifyUploadToken } from "../auth/upload-token.ts";
import { createUploadRequest, createUploadTokenRequest, TUS, UPLOAD_EXTENSIONS } from "../contract/uploads.ts";
import { database, type Db } from "../db/client.ts";
import { findOrganization } from "../db/orgs.ts";
import type { Mode, Organization, UploadRow } from "../db/schema.ts";
import { countTokenUploads, findUpload, insertUploadWithin, uploadTokenId, releaseUploadLease, takeUploadLease, terminateUpload, uploadCounts } from "../db/uploads.ts";
import { uploadKey } from "../files/r2-keys.ts";
import { appendBody, discardUnfinished, type Checksum } from "../files/tus.ts";
import { fromBase64url, iso, newId, randomToken } from "../lib/crypto.ts";
import { AppError, invalidInput, unauthorized } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { admitUpload, uploadRaceLost } from "../limits/upload-quota.ts";
import { zodValidator } from "./validation.ts";

/** Who a tus request acts for: the API key's organization and mode, or a browser token's (then only its own uploads). */
interface TusCaller {
  org: Organization;
  mode: Mode;
  /** Set for a browser upload token: the uploads it may touch are the ones it created, as many and as large as it says. */
  token?: { id: string; maxUploads: number; maxBytes: number; mintedAt: number };
}

declare module "hono" {
  interface ContextVariableMap {
    tus: TusCaller;
  }
}

type TusEnv = { Bindings: Env; Variables: AuthVariables };

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

/** The upload a request names, if the caller may see it: its organization and mode, and a token only its own. */
async function findCallerUpload(db: Db, caller: TusCaller, id: string, now: number): Promise<UploadRow> {
  const row = await findUpload(db, id);
  if (!row || row.orgId !== caller.org.id || row.mode !== caller.mode || row.protocol !== "tus" || (caller.token && row.tokenId !== caller.token.id)) {
    throw new AppError("not_found", `no resumable upload ${id} for this organization and mode`);
  }
  if (row.expiresAt <= now) throw new AppError("upload_expired", `upload ${id} expired or was terminated; its bytes are gone, create a new upload`);
  return row;
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

/**
 * `Upload-Length`, within what the caller may upload: over the plan's largest upload (at most
 * Tus-Max-Size) or the upload token's `maxBytes` is 413, as tus 1.0.0 creation says, with the
 * limit in `details`; a value that is not a non-negative integer is 400.
 */
function uploadLength(c: Context<TusEnv>, caller: TusCaller): number {
  const value = c.req.header("upload-length")!.trim();
  if (!/^\d+$/.test(value)) throw invalidInput("Upload-Length must be a non-negative integer", [{ path: "Upload-Length", message: "not a non-negative integer" }]);
  const size = Number(value);
  const planMax = PLAN_LIMITS[caller.org.plan].maxUploadBytes;
  if (size > planMax) {
    throw new AppError("payload_too_large", `the ${caller.org.plan} plan takes uploads of at most ${planMax} bytes; this one declares ${value}`, { details: { limit: planMax } });
  }
  if (caller.token && size > caller.token.maxBytes) {
    throw new AppError("payload_too_large", `this upload token takes uploads of at most ${caller.token.maxBytes} bytes; this one declares ${value}`, { details: { limit: caller.token.maxBytes } });
  }
  return size;
}

async function create(c: Context<TusEnv>): Promise<Response> {
  const caller = c.get("tus");
  const now = Date.now();
  if (c.req.header("upload-defer-length") !== undefined || c.req.header("upload-length") === undefined) {
    throw invalidInput("send Upload-Length: the file's size in bytes (deferred lengths are not supported)", [{ path: "Upload-Length", message: "required" }]);
  }
  const size = uploadLength(c, caller);
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
  const limits = PLAN_LIMITS[caller.org.plan];
  const db = database(c.env.DB);
  const who = { orgId: caller.org.id, mode: caller.mode };
  // A browser token's own caps first: whoever reads it from the page can spend no more than the backend chose.
  const token = caller.token && { id: caller.token.id, maxUploads: caller.token.maxUploads, since: caller.token.mintedAt };
  const tokenSpent = () => new AppError("forbidden", `this upload token may create ${token!.maxUploads} upload${token!.maxUploads === 1 ? "" : "s"} and has; ask your backend for a new token`);
  if (token && (await countTokenUploads(db, who, token)) >= token.maxUploads) throw tokenSpent();
  const window = TUNABLES.limiter.quotaWindowMs;
  const counted = { perHour: limits.uploadsPerHour, open: limits.openUploads, token };
  let admission = admitUpload(await uploadCounts(db, who, now, window, counted), limits, caller.org.plan, true, now);
  if (!admission.ok) throw admission.error;
  const id = newId("upl");
  const row = {
    id,
    ...who,
    ...parsed.data,
    status: "pending" as const,
    protocol: "tus" as const,
    received: 0,
    createdAt: now,
    expiresAt: now + TUNABLES.tus.unfinishedLifetimeMs,
    tokenId: caller.token?.id ?? null,
  };
  if (!(await insertUploadWithin(db, row, now, window, counted))) {
    // Another create took the last place between the count and the insert.
    if (token && (await countTokenUploads(db, who, token)) >= token.maxUploads) throw tokenSpent();
    admission = admitUpload(await uploadCounts(db, who, now, window, counted), limits, caller.org.plan, true, now);
    throw admission.ok ? uploadRaceLost(limits) : admission.error;
  }
  const headers: Record<string, string> = { ...admission.headers, location: `${new URL(c.req.url).origin}${TUS.path}/${id}`, "upload-expires": httpDate(row.expiresAt) };
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

/** The API key, or (for a browser) an upload token; both as `Authorization: Bearer …`. */
async function authenticate(c: Context<TusEnv>, next: () => Promise<void>): Promise<Response | void> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (bearer && looksLikeUploadToken(bearer)) {
    const check = await verifyUploadToken(c.env.FILES_SIGNING_SECRET, bearer, Math.floor(Date.now() / 1000));
    if (!check.ok) throw unauthorized(check.reason === "expired" ? "this upload token has expired; ask your backend for a new one" : "this upload token is not valid");
    const org = await findOrganization(database(c.env.DB), check.grant.orgId);
    if (!org) throw unauthorized("this upload token is not valid");
    const { tokenId, maxUploads, maxBytes, expiresAt } = check.grant;
    const mintedAt = (expiresAt - TUNABLES.tus.tokenLifetimeS - 1) * 1000;
    c.set("tus", { org, mode: check.grant.mode, token: { id: tokenId, maxUploads, maxBytes: Math.min(maxBytes, PLAN_LIMITS[org.plan].maxUploadBytes), mintedAt } });
    return next();
  }
  return apiKeyAuth()(c, async () => {
    c.set("tus", { org: c.get("org"), mode: c.get("mode") });
    await next();
  });
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
  // A browser token: minted with the API key (a plain API call, not tus), handed to a page.
  .post("/tokens", apiKeyAuth(), zodValidator("json", createUploadTokenRequest), async (c) => {
    const org = c.get("org");
    const request = c.req.valid("json");
    const planMax = PLAN_LIMITS[org.plan].maxUploadBytes;
    if (request.maxBytes !== undefined && request.maxBytes > planMax) {
      throw invalidInput(`maxBytes: the ${org.plan} plan takes uploads of at most ${planMax} bytes`, [{ path: "maxBytes", message: `at most ${planMax} on the ${org.plan} plan` }]);
    }
    const expiresAt = Math.floor(Date.now() / 1000) + TUNABLES.tus.tokenLifetimeS;
    if (request.uploadId !== undefined) {
      // A token to finish an upload whose page's token expired: the upload's token id again, creating nothing.
      const both = (["maxUploads", "maxBytes"] as const).filter((name) => request[name] !== undefined);
      if (both.length) throw invalidInput(`${both[0]}: a token for an existing upload creates none; send uploadId alone`, both.map((path) => ({ path, message: "not with uploadId" })));
      const db = database(c.env.DB);
      const row = await findCallerUpload(db, { org, mode: c.get("mode") }, request.uploadId, Date.now());
      const tokenId = row.tokenId ?? (await uploadTokenId(db, row.id, randomToken(16)));
      if (!tokenId) throw new AppError("not_found", `no resumable upload ${row.id} for this organization and mode`);
      const caps = { maxUploads: 0, maxBytes: row.size };
      const { token } = await signUploadToken(c.env.FILES_SIGNING_SECRET, org.id, c.get("mode"), expiresAt, { ...caps, tokenId });
      return c.json({ token, endpoint: `${new URL(c.req.url).origin}${TUS.path}`, expiresAt: iso(expiresAt * 1000)!, ...caps, uploadUrl: `${new URL(c.req.url).origin}${TUS.path}/${row.id}` }, 201);
    }
    const caps = { maxUploads: request.maxUploads ?? 1, maxBytes: request.maxBytes ?? planMax };
    const { token } = await signUploadToken(c.env.FILES_SIGNING_SECRET, org.id, c.get("mode"), expiresAt, caps);
    return c.json({ token, endpoint: `${new URL(c.req.url).origin}${TUS.path}`, expiresAt: iso(expiresAt * 1000)!, ...caps }, 201);
  })
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

// Who may use /v1/uploads/tus and how much (tus.ts speaks the protocol): the caller, by API
// key or browser upload token; the token's and the plan's caps on a new upload; minting tokens.
import type { Context } from "hono";
import { Hono } from "hono";
import { apiKeyAuth, type AuthVariables } from "../auth/api-key.ts";
import { looksLikeUploadToken, signUploadToken, verifyUploadToken } from "../auth/upload-token.ts";
import { createUploadTokenRequest, TUS } from "../contract/uploads.ts";
import { database, type Db } from "../db/client.ts";
import { findOrganization } from "../db/orgs.ts";
import type { Mode, Organization, UploadRow, uploads } from "../db/schema.ts";
import { countTokenUploads, findUpload, insertUploadWithin, uploadCounts, uploadTokenId } from "../db/uploads.ts";
import { iso, randomToken } from "../lib/crypto.ts";
import { AppError, invalidInput, unauthorized } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { admitUpload, uploadRaceLost } from "../limits/upload-quota.ts";
import { zodValidator } from "./validation.ts";

/** Who a tus request acts for: the API key's organization and mode, or a browser token's (then only its own uploads). */
export interface TusCaller {
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

type UploadInsert = typeof uploads.$inferInsert;

export type TusEnv = { Bindings: Env; Variables: AuthVariables };

/** The upload a request names, if the caller may see it: its organization and mode, and a token only its own. */
export async function findCallerUpload(db: Db, caller: TusCaller, id: string, now: number): Promise<UploadRow> {
  const row = await findUpload(db, id);
  if (!row || row.orgId !== caller.org.id || row.mode !== caller.mode || row.protocol !== "tus" || (caller.token && row.tokenId !== caller.token.id)) {
    throw new AppError("not_found", `no resumable upload ${id} for this organization and mode`);
  }
  if (row.expiresAt <= now) throw new AppError("upload_expired", `upload ${id} expired or was terminated; its bytes are gone, create a new upload`);
  return row;
}

/**
 * A declared upload size (`declared`, as the client wrote it) within what the caller may upload:
 * over the plan's largest upload (at most Tus-Max-Size) or the upload token's `maxBytes` is 413,
 * as tus 1.0.0 creation says, with the limit in `details`.
 */
export function checkUploadSize(caller: TusCaller, size: number, declared: string): void {
  const planMax = PLAN_LIMITS[caller.org.plan].maxUploadBytes;
  if (size > planMax) {
    throw new AppError("payload_too_large", `the ${caller.org.plan} plan takes uploads of at most ${planMax} bytes; this one declares ${declared}`, { details: { limit: planMax } });
  }
  if (caller.token && size > caller.token.maxBytes) {
    throw new AppError("payload_too_large", `this upload token takes uploads of at most ${caller.token.maxBytes} bytes; this one declares ${declared}`, { details: { limit: caller.token.maxBytes } });
  }
}

/** A new upload's row as tus.ts makes it; the organization, mode and token come from the caller. */
export type NewUpload = Omit<UploadInsert, "orgId" | "mode" | "tokenId">;

/**
 * Inserts `upload` if the caller may create it now: a browser token's own caps first (whoever
 * reads it from the page can spend no more than the backend chose), then the plan's upload
 * quota and open uploads, counted and inserted in one statement. Returns the rate-limit headers.
 */
export async function insertAdmitted(db: Db, caller: TusCaller, upload: NewUpload, now: number): Promise<Record<string, string>> {
  const limits = PLAN_LIMITS[caller.org.plan];
  const who = { orgId: caller.org.id, mode: caller.mode };
  const token = caller.token && { id: caller.token.id, maxUploads: caller.token.maxUploads, since: caller.token.mintedAt };
  const tokenSpent = () => new AppError("forbidden", `this upload token may create ${token!.maxUploads} upload${token!.maxUploads === 1 ? "" : "s"} and has; ask your backend for a new token`);
  if (token && (await countTokenUploads(db, who, token)) >= token.maxUploads) throw tokenSpent();
  const window = TUNABLES.limiter.quotaWindowMs;
  const counted = { perHour: limits.uploadsPerHour, open: limits.openUploads, token };
  let admission = admitUpload(await uploadCounts(db, who, now, window, counted), limits, caller.org.plan, true, now);
  if (!admission.ok) throw admission.error;
  if (!(await insertUploadWithin(db, { ...upload, ...who, tokenId: caller.token?.id ?? null }, now, window, counted))) {
    // Another create took the last place between the count and the insert.
    if (token && (await countTokenUploads(db, who, token)) >= token.maxUploads) throw tokenSpent();
    admission = admitUpload(await uploadCounts(db, who, now, window, counted), limits, caller.org.plan, true, now);
    throw admission.ok ? uploadRaceLost(limits) : admission.error;
  }
  return admission.headers;
}

/** The API key, or (for a browser) an upload token; both as `Authorization: Bearer …`. */
export async function authenticate(c: Context<TusEnv>, next: () => Promise<void>): Promise<Response | void> {
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

/** POST /tokens: a browser token, minted with the API key (a plain API call, not tus), handed to a page. */
export const uploadTokenRoutes = new Hono<TusEnv>().post("/tokens", apiKeyAuth(), zodValidator("json", createUploadTokenRequest), async (c) => {
  const org = c.get("org");
  const request = c.req.valid("json");
  const planMax = PLAN_LIMITS[org.plan].maxUploadBytes;
  if (request.maxBytes !== undefined && request.maxBytes > planMax) {
    throw invalidInput(`maxBytes: the ${org.plan} plan takes uploads of at most ${planMax} bytes`, [{ path: "maxBytes", message: `at most ${planMax} on the ${org.plan} plan` }]);
  }
  const expiresAt = Math.floor(Date.now() / 1000) + TUNABLES.tus.tokenLifetimeS;
  const endpoint = `${new URL(c.req.url).origin}${TUS.path}`;
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
    return c.json({ token, endpoint, expiresAt: iso(expiresAt * 1000)!, ...caps, uploadUrl: `${endpoint}/${row.id}` }, 201);
  }
  const caps = { maxUploads: request.maxUploads ?? 1, maxBytes: request.maxBytes ?? planMax };
  const { token } = await signUploadToken(c.env.FILES_SIGNING_SECRET, org.id, c.get("mode"), expiresAt, caps);
  return c.json({ token, endpoint, expiresAt: iso(expiresAt * 1000)!, ...caps }, 201);
});

// Browser upload tokens (docs/api.md: resumable uploads from a browser): a backend with the
// API key asks for one (POST /v1/uploads/tus/tokens) and hands it to a page, which sends it
// on the tus requests instead of the key. `ut_` + base64url(JSON claims) + "." +
// base64url(HMAC-SHA256 with FILES_SIGNING_SECRET); nothing is stored, it lives
// TUNABLES.tus.tokenLifetimeS and can create and write resumable uploads only, its own only,
// at most as many and as large as its claims say (the backend chooses; a page may read the
// token, so it must not be able to spend the organization's limits).
import { openClaims, randomToken, sealClaims } from "../lib/crypto.ts";
import type { Mode } from "../db/schema.ts";

interface UploadTokenClaims {
  /** Organization id and mode the uploads are created for. */
  o: string;
  m: Mode;
  /** Expiry, unix seconds. */
  e: number;
  /** The token's id: uploads it creates record it, and it may touch no other. */
  i: string;
  /** Purpose, so that no other signed value of the same secret reads as a token. */
  p: "tus";
  /** How many uploads it may create (counted by its id in D1). */
  u: number;
  /** The largest upload it may create, in bytes (at most the plan's). */
  b: number;
}

export interface UploadTokenGrant {
  orgId: string;
  mode: Mode;
  tokenId: string;
  expiresAt: number;
  maxUploads: number;
  maxBytes: number;
}

/** What a token may do beyond its organization and mode; `tokenId` reuses an existing upload's (a token to finish it). */
export interface UploadTokenCaps {
  maxUploads: number;
  maxBytes: number;
  tokenId?: string;
}

const PREFIX = "ut_";

export async function signUploadToken(secret: string, orgId: string, mode: Mode, expiresAtS: number, caps: UploadTokenCaps): Promise<{ token: string; tokenId: string }> {
  const claims: UploadTokenClaims = { o: orgId, m: mode, e: expiresAtS, i: caps.tokenId ?? randomToken(16), p: "tus", u: caps.maxUploads, b: caps.maxBytes };
  return { token: await sealClaims(secret, claims, PREFIX), tokenId: claims.i };
}

export function looksLikeUploadToken(bearer: string): boolean {
  return bearer.startsWith(PREFIX);
}

export type UploadTokenCheck = { ok: true; grant: UploadTokenGrant } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/** Checks a token's signature, purpose and expiry; `now` in unix seconds. */
export async function verifyUploadToken(secret: string, token: string, now: number): Promise<UploadTokenCheck> {
  const opened = await openClaims(secret, token, PREFIX);
  if (!opened.ok) return opened;
  const claims = opened.claims as unknown as UploadTokenClaims; // checked field by field below
  if (
    claims.p !== "tus" || typeof claims.o !== "string" || (claims.m !== "live" && claims.m !== "test") || typeof claims.e !== "number" || typeof claims.i !== "string" ||
    !Number.isInteger(claims.u) ||
    claims.u < 0 ||
    !Number.isInteger(claims.b) ||
    claims.b < 0
  ) {
    return { ok: false, reason: "malformed" };
  }
  if (claims.e <= now) return { ok: false, reason: "expired" };
  return { ok: true, grant: { orgId: claims.o, mode: claims.m, tokenId: claims.i, expiresAt: claims.e, maxUploads: claims.u, maxBytes: claims.b } };
}

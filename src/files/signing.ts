// Signed download links (docs/api.md, "Downloads"): /v1/files/<token>/<file name>, where the token is
// base64url(JSON {k: R2 key, e: expiry in unix seconds, n: nonce}) + "." +
// base64url(HMAC-SHA256). Links live TUNABLES.links.downloadLifetimeS; each read of a job signs fresh ones.
// A link to an output in a folder (`stream/master.m3u8`) signs the folder: its key ends in
// "/" and the file name in the link's path picks the file, so the relative URIs inside a
// playlist or a WebVTT file resolve under the same token, until it expires.
import { openClaims, randomToken, sealClaims } from "../lib/crypto.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { isOutputName } from "../contract/processor-protocol.ts";
import { outputKey } from "./r2-keys.ts";

const { downloadLifetimeS } = TUNABLES.links;

interface LinkClaims {
  k: string;
  e: number;
  /** Makes every link distinct, so a new read never hands back an old link. */
  n: string;
  /** `put` on an upload target (PUT /v1/uploads/:id/content); absent on download links. */
  p?: "put";
}

/** A link to one object; or, with `folder`, to every file under the key's folder (the key ends in "/"). */
export async function signLink(secret: string, origin: string, key: string, expiresAt: number, name?: string): Promise<string> {
  const token = await sealClaims(secret, { k: key, e: expiresAt, n: randomToken(8) });
  return `${origin}/v1/files/${token}/${encodeURIComponent(name ?? key.slice(key.lastIndexOf("/") + 1))}`;
}

/** The R2 key a download link reads: its own, or for a folder link the file named in the link's path. */
export function linkedKey(key: string, name: string | undefined): string | undefined {
  if (!key.endsWith("/")) return key;
  return name !== undefined && isOutputName(name) && !name.includes("/") ? `${key}${name}` : undefined;
}

/** The Worker's own upload target for an object (local development: no R2 S3 credentials). */
export async function signUploadTarget(secret: string, origin: string, uploadId: string, key: string, expiresAt: number): Promise<string> {
  const token = await sealClaims(secret, { k: key, e: expiresAt, n: randomToken(8), p: "put" });
  return `${origin}/v1/uploads/${uploadId}/content?token=${token}`;
}

export type LinkCheck = { ok: true; key: string } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/** Checks a download link's token: signature, expiry, and that it is not an upload target. `now` in unix seconds. */
export async function verifyLink(secret: string, token: string, now: number): Promise<LinkCheck> {
  return verifyClaims(secret, token, now, undefined);
}

/** Checks an upload target's token; the key it names is the only object it may write. */
export async function verifyUploadTarget(secret: string, token: string, now: number): Promise<LinkCheck> {
  return verifyClaims(secret, token, now, "put");
}

async function verifyClaims(secret: string, token: string, now: number, purpose: LinkClaims["p"]): Promise<LinkCheck> {
  const opened = await openClaims(secret, token);
  if (!opened.ok) return opened;
  const claims = opened.claims as Partial<LinkClaims>;
  if (typeof claims.k !== "string" || typeof claims.e !== "number" || claims.p !== purpose) return { ok: false, reason: "malformed" };
  if (claims.e <= now) return { ok: false, reason: "expired" };
  return { ok: true, key: claims.k };
}

/**
 * Replaces every `url` in a stored result (an output name) with a signed link and adds its
 * `expiresAt`, at any depth: `result.url`, `result.audio.url`, `result.frames[i].url`. A name
 * in a folder gets a folder link.
 */
export async function signResult(
  result: unknown,
  options: { secret: string; origin: string; jobId: string; now: number },
): Promise<unknown> {
  const expires = Math.floor(options.now / 1000) + downloadLifetimeS;
  const expiresAt = new Date(expires * 1000).toISOString();
  const walk = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(walk));
    if (value === null || typeof value !== "object") return value;
    const entries = await Promise.all(
      Object.entries(value).map(async ([k, v]) => [k, k === "url" ? v : await walk(v)] as const),
    );
    const out: Record<string, unknown> = Object.fromEntries(entries);
    if (typeof out.url === "string") {
      const name = out.url;
      const slash = name.indexOf("/");
      out.url =
        slash < 0
          ? await signLink(options.secret, options.origin, outputKey(options.jobId, name), expires)
          : await signLink(options.secret, options.origin, outputKey(options.jobId, name.slice(0, slash + 1)), expires, name.slice(slash + 1));
      out.expiresAt = expiresAt;
    }
    return out;
  };
  return walk(result);
}

/** Every output name a stored result refers to. */
export function outputNames(result: unknown): string[] {
  if (Array.isArray(result)) return result.flatMap(outputNames);
  if (result === null || typeof result !== "object") return [];
  const own = typeof (result as { url?: unknown }).url === "string" ? [(result as { url: string }).url] : [];
  return [...own, ...Object.entries(result).flatMap(([k, v]) => (k === "url" ? [] : outputNames(v)))];
}

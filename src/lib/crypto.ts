// Small WebCrypto helpers: ids, hashes, HMAC signing and constant-time verification.

const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Random string of `length` characters from [A-Za-z0-9], without modulo bias. */
export function randomToken(length: number): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 62 * 4 = 248: bytes at or above are rejected so every character is equally likely.
      if (byte < 248 && out.length < length) out.push(URL_SAFE[byte % 62]!);
    }
  }
  return out.join("");
}

export function newId(prefix: string, length = 24): string {
  return `${prefix}_${randomToken(length)}`;
}

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return toHex(new Uint8Array(digest));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}

/** Verifies an HMAC-SHA256 in constant time (WebCrypto's verify does not short-circuit). */
async function verifyHmacSha256(secret: string, message: string, signature: Uint8Array): Promise<boolean> {
  return crypto.subtle.verify("HMAC", await hmacKey(secret), signature, encoder.encode(message));
}

/**
 * Claims sealed with HMAC-SHA256: `prefix` + base64url(JSON claims) + "." +
 * base64url(HMAC of prefix and payload). Download links (no prefix) and browser upload
 * tokens (`ut_`) are both this; each checks its own claims' shape after opening.
 */
export async function sealClaims(secret: string, claims: object, prefix = ""): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  return `${prefix}${payload}.${base64url(await hmacSha256(secret, `${prefix}${payload}`))}`;
}

type OpenedClaims = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: "malformed" | "bad_signature" };

/** The claims of a sealed token, once its prefix, form and signature check. */
export async function openClaims(secret: string, token: string, prefix = ""): Promise<OpenedClaims> {
  if (!token.startsWith(prefix)) return { ok: false, reason: "malformed" };
  const [payload, signature, extra] = token.slice(prefix.length).split(".");
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: "malformed" };
  try {
    if (!(await verifyHmacSha256(secret, `${prefix}${payload}`, fromBase64url(signature)))) return { ok: false, reason: "bad_signature" };
    const claims: unknown = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
    return claims !== null && typeof claims === "object" ? { ok: true, claims: claims as Record<string, unknown> } : { ok: false, reason: "malformed" };
  } catch {
    return { ok: false, reason: "malformed" };
  }
}

/** Constant-time comparison of two strings (for bearer tokens). */
export async function timingSafeEqualText(a: string, b: string): Promise<boolean> {
  // Compare fixed-length digests so neither the content nor the length leaks through timing.
  const [x, y] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0 && a.length === b.length;
}

export function iso(ms: number | null | undefined): string | undefined {
  return ms == null ? undefined : new Date(ms).toISOString();
}

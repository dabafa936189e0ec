// The service's own webhook signature, the one wire format that both the Worker (which
// signs, webhooks/sign.ts) and the client library (which verifies, and signs for tests,
// packages/client/src/webhooks.ts) speak:
//   x-service-timestamp: <unix ms>
//   x-service-signature: sha256=<hex HMAC-SHA256(key, "<timestamp>.<raw body>")>
// keyed with the UTF-8 bytes of the whole secret; several signatures, space-separated,
// while a secret is rotated. Pure functions taking a SubtleCrypto (globalThis.crypto.subtle
// on every runtime), so this module imports nothing and ships with the client.

export const TIMESTAMP_HEADER = "x-service-timestamp";
export const SIGNATURE_HEADER = "x-service-signature";

const SCHEME = "sha256=";
const encoder = new TextEncoder();

/** The timestamp header's value for a moment in Unix ms. */
export function signatureTimestamp(ms: number): string {
  return String(Math.trunc(ms));
}

/** One `sha256=<hex>` signature of `body` at `timestamp` with `secret`. */
export async function serviceSignature(subtle: SubtleCrypto, secret: string, timestamp: string, body: Uint8Array): Promise<string> {
  const key = await hmacKey(subtle, secret, "sign");
  return SCHEME + toHex(new Uint8Array(await subtle.sign("HMAC", key, signedContent(timestamp, body))));
}

/** The `sha256=<hex>` entries of a signature header, as bytes; other schemes and malformed entries are ignored. */
export function parseServiceSignatures(header: string): Uint8Array<ArrayBuffer>[] {
  return header
    .split(/[\s,]+/)
    .filter((part) => /^sha256=[0-9a-f]{64}$/i.test(part))
    .map((part) => fromHex(part.slice(SCHEME.length)));
}

/**
 * Whether one of `signatures` is that of `body` at `timestamp` under one of `secrets`.
 * Compared by `subtle.verify`, in constant time.
 */
export async function matchesServiceSignature(
  subtle: SubtleCrypto,
  secrets: readonly string[],
  signatures: readonly Uint8Array<ArrayBuffer>[],
  timestamp: string,
  body: Uint8Array,
): Promise<boolean> {
  const content = signedContent(timestamp, body);
  for (const secret of secrets) {
    const key = await hmacKey(subtle, secret, "verify");
    for (const signature of signatures) {
      if (await subtle.verify("HMAC", key, signature, content)) return true;
    }
  }
  return false;
}

/** "<timestamp>." followed by the raw body. */
function signedContent(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(`${timestamp}.`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

function hmacKey(subtle: SubtleCrypto, secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

// Signs a webhook body under both schemes of docs/webhooks.md, with every secret that is
// valid right now (two during an organization's rotation, space-separated as Standard
// Webhooks does):
//   x-service-timestamp / x-service-signature: the service's own format, written once in
//     contract/webhook-signature.ts, which the client library's verifyWebhook also uses.
//   webhook-id / webhook-timestamp / webhook-signature: Standard Webhooks
//     (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
//     "v1," + base64 HMAC-SHA256 over "<id>.<seconds>.<body>". Key: see standardWebhooksKey.
import { serviceSignature, signatureTimestamp } from "../contract/webhook-signature.ts";

const encoder = new TextEncoder();
const PREFIX = "whsec_";

export interface SignedHeaders {
  "x-service-timestamp": string;
  "x-service-signature": string;
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The Standard Webhooks HMAC key of a secret. The spec's libraries strip `whsec_` and
 * base64-decode the rest (`new Webhook(secret)`); our organization secrets are `whsec_` +
 * 32 letters and digits, which is valid base64 of 24 bytes, so we decode it the same way
 * and every Standard Webhooks library verifies with the secret string as shown. A job's
 * own `webhookSecret` is free text: when what follows an optional `whsec_` is not
 * canonical base64, the key is the UTF-8 bytes of the whole secret, which the libraries
 * accept as a raw key (`new Webhook(secret, { format: "raw" })` in JavaScript).
 */
export function standardWebhooksKey(secret: string): Uint8Array<ArrayBuffer> {
  const tail = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return decodeCanonicalBase64(tail) ?? (encoder.encode(secret) as Uint8Array<ArrayBuffer>);
}

/** Signs `body` for delivery `id` at `nowMs` with each secret, current first. */
export async function signDelivery(body: string, id: string, secrets: readonly string[], nowMs: number): Promise<SignedHeaders> {
  const seconds = Math.floor(nowMs / 1000);
  const timestamp = signatureTimestamp(nowMs);
  const bytes = encoder.encode(body);
  const service = await Promise.all(secrets.map((secret) => serviceSignature(crypto.subtle, secret, timestamp, bytes)));
  const standard = await Promise.all(secrets.map((secret) => standardSignature(standardWebhooksKey(secret), `${id}.${seconds}.${body}`)));
  return {
    "x-service-timestamp": timestamp,
    "x-service-signature": service.join(" "),
    "webhook-id": id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": standard.join(" "),
  };
}

async function standardSignature(key: Uint8Array<ArrayBuffer>, content: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(content)));
  return `v1,${btoa(String.fromCharCode(...mac))}`;
}

/** Bytes of standard, padded base64 that re-encodes to exactly `text`; undefined otherwise. */
function decodeCanonicalBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  // Refuses spellings with stray low bits in the last character, which decoders treat differently.
  if (btoa(binary) !== text) return undefined;
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

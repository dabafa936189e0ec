// Webhook signatures (docs/webhooks.md): `x-service-timestamp: <unix ms>` and
// `x-service-signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`, with
// several space-separated signatures while a secret is rotated; the wire format itself is
// contract/webhook-signature.ts, shared with the service. Verification uses WebCrypto's
// constant-time `crypto.subtle.verify` and checks the signature before it trusts the
// timestamp, then the timestamp against a tolerance so a captured request cannot be
// replayed later.
import type { SdkJob } from "./types.ts";
import {
  matchesServiceSignature,
  parseServiceSignatures,
  serviceSignature,
  SIGNATURE_HEADER as SIGNATURE,
  signatureTimestamp,
  TIMESTAMP_HEADER as TIMESTAMP,
} from "../../../src/contract/webhook-signature.ts";
import { MediaJobsError, WebhookVerificationError } from "./errors.ts";

/**
 * The header that carries the signing time, in Unix milliseconds.
 *
 * @example
 * ```ts
 * const sentAt = new Date(Number(request.headers.get(TIMESTAMP_HEADER)));
 * ```
 */
export const TIMESTAMP_HEADER = TIMESTAMP;
/**
 * The header that carries `sha256=<hex>` signatures, space-separated.
 *
 * @example
 * ```ts
 * const signatures = request.headers.get(SIGNATURE_HEADER)?.split(" ") ?? [];
 * ```
 */
export const SIGNATURE_HEADER = SIGNATURE;
const DEFAULT_TOLERANCE_MS = 5 * 60 * 1000;

/**
 * The body of a webhook: the job in the client-library dialect, the same shape `getJob` returns.
 *
 * @example
 * ```ts
 * function onWebhook(job: WebhookPayload) {
 *   if (job.type === "compressImage" && job.status === "completed") console.log(job.url, job.compressionRatio);
 * }
 * ```
 */
export type WebhookPayload = SdkJob;

/**
 * The body of a `videoAdaptive` job's `job.playable` webhook: sent once when its stream plays,
 * before the job completes, besides the job's end; `data` is the job as `getJob` returns it,
 * with `playableAt` and `playable.url` (docs/webhooks.md). `verifyWebhook` returns it as it
 * returns a job's end: tell the two apart with {@link isJobPlayable}.
 *
 * @example
 * ```ts
 * const body = await verifyWebhook(raw, headers, secret);
 * if (isJobPlayable(body)) startPlayer(body.data.playable!.url);
 * ```
 */
export interface JobPlayableWebhook {
  type: "job.playable";
  data: SdkJob;
}

/**
 * Whether a verified webhook body is a `job.playable` event rather than a job's end.
 *
 * @example
 * ```ts
 * if (isJobPlayable(body)) console.log(body.data.id, body.data.playableAt);
 * ```
 */
export function isJobPlayable(body: WebhookPayload | JobPlayableWebhook): body is JobPlayableWebhook {
  return (body as { type?: unknown }).type === "job.playable" && typeof (body as { data?: unknown }).data === "object";
}

/**
 * The request body exactly as received: a string or bytes, never a parsed object.
 *
 * @example
 * ```ts
 * const raw: RawBody = await request.text();
 * ```
 */
export type RawBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Request headers: a `Headers` object, or a plain record such as Node's `req.headers`
 * (names are matched case-insensitively).
 *
 * @example
 * ```ts
 * const headers: WebhookHeaders = { "X-Service-Timestamp": "1767225600000", "X-Service-Signature": "sha256=…" };
 * ```
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

/**
 * Options of `verifyWebhook`.
 *
 * @example
 * ```ts
 * const options: VerifyWebhookOptions = { toleranceMs: 60_000 };
 * ```
 */
export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, either way, in ms. Default 300000 (5 minutes). */
  toleranceMs?: number;
  /** The current time in Unix ms. Default `Date.now()`. */
  now?: number;
}

/**
 * The headers a signed webhook carries.
 *
 * @example
 * ```ts
 * const headers: WebhookSignatureHeaders = await signWebhook(body, secret);
 * ```
 */
export type WebhookSignatureHeaders = {
  "x-service-timestamp": string;
  "x-service-signature": string;
};

const encoder = new TextEncoder();

/**
 * Checks a webhook's signature and timestamp and returns its payload, typed. Pass the raw
 * body as received (a string or bytes): a body parsed and serialised again does not match.
 * `secret` is the job's `webhookSecret` or your organization's `whsec_…` secret; pass
 * several during your own rotation. Throws {@link WebhookVerificationError} when the
 * request must not be trusted. A `videoAdaptive` job also sends a `job.playable` event
 * before its end ({@link JobPlayableWebhook}): check {@link isJobPlayable} first.
 *
 * @example
 * ```ts
 * // Hono, or any fetch-style handler (Workers, Deno, Bun)
 * app.post("/webhooks/media", async (c) => {
 *   const job = await verifyWebhook(await c.req.text(), c.req.raw.headers, env.MEDIA_JOBS_WEBHOOK_SECRET);
 *   if (job.status === "completed") await saveResult(job);
 *   return c.body(null, 204);
 * });
 * ```
 */
export async function verifyWebhook(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  const body = rawBytes(rawBody);
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s === "")) {
    throw new MediaJobsError("verifyWebhook needs the webhook secret (a non-empty string, or a list of them)");
  }

  const timestamp = headerValue(headers, TIMESTAMP_HEADER);
  const signatureHeader = headerValue(headers, SIGNATURE_HEADER);
  if (timestamp === undefined) throw new WebhookVerificationError(`Missing the ${TIMESTAMP_HEADER} header`);
  if (signatureHeader === undefined) throw new WebhookVerificationError(`Missing the ${SIGNATURE_HEADER} header`);
  if (!/^\d+$/.test(timestamp)) {
    throw new WebhookVerificationError(`The ${TIMESTAMP_HEADER} header must be Unix milliseconds, got "${timestamp}"`);
  }
  const signatures = parseServiceSignatures(signatureHeader);
  if (signatures.length === 0) {
    throw new WebhookVerificationError(`The ${SIGNATURE_HEADER} header has no "sha256=<64 hex digits>" signature`);
  }

  if (!(await matchesServiceSignature(subtle(), secrets, signatures, timestamp, body))) {
    throw new WebhookVerificationError(
      "The webhook signature does not match: a wrong secret, or a body changed before verifying " +
        "(pass the raw body as received, not one parsed and serialised again)",
    );
  }

  const toleranceMs = options.toleranceMs ?? DEFAULT_TOLERANCE_MS;
  const age = (options.now ?? Date.now()) - Number(timestamp);
  if (Math.abs(age) > toleranceMs) {
    const when = age > 0 ? `${Math.round(age / 1000)} s old` : `${Math.round(-age / 1000)} s in the future`;
    throw new WebhookVerificationError(
      `The webhook timestamp is ${when}, outside the ${Math.round(toleranceMs / 1000)} s tolerance: a replayed request, or a clock that is off`,
    );
  }

  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookPayload;
  } catch {
    throw new WebhookVerificationError("The webhook body is signed but is not JSON");
  }
}

/**
 * Signs a webhook body the way the service does, returning the two headers to send. Use it
 * to test your receiver.
 *
 * @example
 * ```ts
 * const body = JSON.stringify(job);
 * const headers = await signWebhook(body, "whsec_test_secret");
 * await fetch("http://localhost:3000/webhooks/media", { method: "POST", headers, body });
 * ```
 */
export async function signWebhook(
  rawBody: RawBody,
  secret: string,
  timestampMs: number = Date.now(),
): Promise<WebhookSignatureHeaders> {
  const timestamp = signatureTimestamp(timestampMs);
  const signature = await serviceSignature(subtle(), secret, timestamp, rawBytes(rawBody));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature };
}

function subtle(): SubtleCrypto {
  // Read through a cast: Workers types declare `crypto` as a global constant, DOM types as optional.
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) {
    throw new MediaJobsError(
      "Webhook signatures need WebCrypto (globalThis.crypto.subtle): use Node 20+, or Node 18 with --experimental-global-webcrypto",
    );
  }
  return subtle;
}

function rawBytes(rawBody: RawBody): Uint8Array {
  if (typeof rawBody === "string") return encoder.encode(rawBody);
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const got = rawBody === null ? "null" : typeof rawBody === "object" ? "a parsed object" : typeof rawBody;
  throw new WebhookVerificationError(
    `verifyWebhook needs the raw request body (a string or bytes, exactly as received), got ${got}. ` +
      "Read it before any JSON parser: express.raw({ type: 'application/json' }), await request.text() in Hono, Workers or Deno.",
  );
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === "string" ? value : value.join(" ");
  }
  return undefined;
}

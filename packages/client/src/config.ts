// The client's configuration helpers: the base URL, the fetch to use, idempotency keys.
import { MediaJobsError } from "./errors.ts";
import type { FetchLike } from "./calls.ts";

/**
 * The base URL used when neither `baseUrl` nor `MEDIA_JOBS_BASE_URL` is set: where
 * `wrangler dev` serves the API.
 *
 * @example
 * ```ts
 * const local = new MediaJobsClient({ apiKey: "sk_test_…", baseUrl: DEFAULT_BASE_URL });
 * ```
 */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787/v1";

export function checkBaseUrl(value: string): string {
  const trimmed = value.replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new MediaJobsError(`baseUrl must be an absolute URL such as ${DEFAULT_BASE_URL}, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new MediaJobsError(`baseUrl must be http or https, got "${value}"`);
  }
  return trimmed;
}

export function globalFetch(): FetchLike {
  if (typeof globalThis.fetch !== "function") {
    throw new MediaJobsError("No global fetch here: pass { fetch } to new MediaJobsClient()");
  }
  // Called through globalThis: some runtimes throw "Illegal invocation" for a detached fetch.
  return (url, init) => globalThis.fetch(url, init);
}

/** A UUID v4; crypto.randomUUID where it exists, getRandomValues otherwise. */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// One HTTP attempt at a webhook: a POST that does not follow redirects and gives up after
// TUNABLES.webhooks.attemptTimeoutMs (15 s). It reports what happened and never throws;
// what to do next is the caller's call. Real deliveries ignore the receiver's answer; a
// test delivery from the dashboard asks to see its headers and the first bytes of its
// body (`peekBytes`).
import { TUNABLES } from "../lib/tunables.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../net/url-rules.ts";
import type { SignedHeaders } from "./sign.ts";

export const USER_AGENT = "media-jobs-webhooks/1";

/** What the receiver answered, when the caller asked to see it. */
export interface PeekedResponse {
  headers: [string, string][];
  /** The body's first `peekBytes` bytes, decoded as UTF-8. */
  body: string;
  truncated: boolean;
}

export type AttemptResult = (
  /** Any 2xx. */
  | { kind: "delivered"; statusCode: number; latencyMs: number }
  /** 410 Gone, or a URL the address rules refuse: trying again cannot help. */
  | { kind: "rejected"; statusCode: number | null; error: string | null; latencyMs: number }
  /** Any other status (3xx included), a timeout or a network error. */
  | { kind: "failed"; statusCode: number | null; error: string | null; latencyMs: number }
) & { response?: PeekedResponse };

export interface DeliverOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Read up to this many bytes of the answer into `response`; by default the body is not read. */
  peekBytes?: number;
}

export async function deliver(url: string, body: string, signed: SignedHeaders, options: DeliverOptions): Promise<AttemptResult> {
  // Checked again at each attempt, as at job creation (docs/security.md: URL rules). A
  // Worker's fetch() does not expose the address it connects to, so this judges the URL as
  // written: IP literals, local names, ports. A public name whose DNS now points at a private address
  // passes; that case is left to Cloudflare's outbound network (docs/webhooks.md).
  const verdict = checkPublicUrl(url, { allowPrivate: options.allowPrivate, allowedPorts: DEFAULT_ALLOWED_PORTS });
  if (!verdict.ok) return { kind: "rejected", statusCode: null, error: `refused: ${verdict.reason}`, latencyMs: 0 };

  const timeoutMs = options.timeoutMs ?? TUNABLES.webhooks.attemptTimeoutMs;
  const started = Date.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...signed },
      body,
    });
    const latencyMs = Date.now() - started;
    // Only the status counts; a large body must not hold the consumer, so at most
    // peekBytes of it are read (under the same time limit), the rest is cancelled.
    const peeked = options.peekBytes ? { response: await peek(response, options.peekBytes) } : {};
    await response.body?.cancel().catch(() => undefined);
    const statusCode = response.status;
    if (statusCode >= 200 && statusCode < 300) return { kind: "delivered", statusCode, latencyMs, ...peeked };
    if (statusCode === 410) return { kind: "rejected", statusCode, error: null, latencyMs, ...peeked };
    const error = statusCode >= 300 && statusCode < 400 ? "redirects are not followed; answer with a 2xx" : null;
    return { kind: "failed", statusCode, error, latencyMs, ...peeked };
  } catch (error) {
    const latencyMs = Date.now() - started;
    const name = (error as Error)?.name;
    const message =
      name === "TimeoutError" || name === "AbortError"
        ? `no response within ${timeoutMs / 1000} s`
        : `network error: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
    return { kind: "failed", statusCode: null, error: message, latencyMs };
  }
}

async function peek(response: Response, limit: number): Promise<PeekedResponse> {
  const headers = [...response.headers];
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size >= limit) {
        truncated = size > limit;
        break;
      }
    }
  } catch {
    truncated = true; // a timeout or reset mid-body: show what arrived
  } finally {
    await reader?.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  // A multi-byte character cut at the limit decodes as U+FFFD, not an error.
  return { headers, body: new TextDecoder().decode(bytes.subarray(0, limit)), truncated };
}

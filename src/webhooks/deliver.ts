// One HTTP attempt at a webhook: a POST that does not follow redirects and gives up after
// TUNABLES.webhooks.attemptTimeoutMs (15 s). It reports what happened and never throws; what to do next is the caller's call.
import { TUNABLES } from "../lib/tunables.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../net/url-rules.ts";
import type { SignedHeaders } from "./sign.ts";

export const USER_AGENT = "media-jobs-webhooks/1";

export type AttemptResult =
  /** Any 2xx. */
  | { kind: "delivered"; statusCode: number; latencyMs: number }
  /** 410 Gone, or a URL the address rules refuse: trying again cannot help. */
  | { kind: "rejected"; statusCode: number | null; error: string | null; latencyMs: number }
  /** Any other status (3xx included), a timeout or a network error. */
  | { kind: "failed"; statusCode: number | null; error: string | null; latencyMs: number };

export interface DeliverOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
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
    // The body is not read: only the status counts, and a large one must not hold the consumer.
    await response.body?.cancel().catch(() => undefined);
    const statusCode = response.status;
    if (statusCode >= 200 && statusCode < 300) return { kind: "delivered", statusCode, latencyMs };
    if (statusCode === 410) return { kind: "rejected", statusCode, error: null, latencyMs };
    const error = statusCode >= 300 && statusCode < 400 ? "redirects are not followed; answer with a 2xx" : null;
    return { kind: "failed", statusCode, error, latencyMs };
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

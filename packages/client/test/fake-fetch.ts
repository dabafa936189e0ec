// A scripted stand-in for fetch: each call takes the next reply and is recorded with the
// headers and body it sent, so tests assert on what went over the wire.
import type { FetchLike } from "../src/index.ts";

export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
  /** The body as passed to fetch (a Blob, bytes or stream for an upload's PUT). */
  rawBody: BodyInit | null | undefined;
  signal: AbortSignal | undefined;
}

export type Reply = Response | Error | "hang" | ((call: RecordedCall) => Response | Promise<Response>);

export interface FakeFetch extends FetchLike {
  calls: RecordedCall[];
}

export function fakeFetch(...replies: Reply[]): FakeFetch {
  const calls: RecordedCall[] = [];
  const fn = async (url: string, init: RequestInit): Promise<Response> => {
    const call: RecordedCall = {
      url,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      rawBody: init.body,
      signal: init.signal ?? undefined,
    };
    calls.push(call);
    const reply = replies.shift();
    if (reply === undefined) throw new Error(`fake fetch: no reply scripted for call ${calls.length}: ${call.method} ${url}`);
    if (reply === "hang") return hang(call.signal);
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(call);
    return reply;
  };
  return Object.assign(fn, { calls });
}

/** Never answers; rejects with the abort reason, like fetch does. */
function hang(signal: AbortSignal | undefined): Promise<Response> {
  return new Promise((_, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function apiError(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return json(status, { error: { code, message, ...extra } }, headers);
}

/** Records the delays asked for and returns at once. */
export function instantSleep(): ((ms: number) => Promise<void>) & { delays: number[] } {
  const delays: number[] = [];
  return Object.assign(async (ms: number) => void delays.push(ms), { delays });
}

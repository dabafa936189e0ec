// A job's progress as server-sent events: GET /v1/jobs/:id/events (docs/api.md, "Waiting
// for a job") sends the job's state on connecting and at each change, then `end` with the
// final job. The server closes a connection within 60 s; like an EventSource, the client
// connects again (with `Last-Event-ID` and after `retry` when the server sent them) until
// the end, and yields each state once across connections.
import { toSdkJob } from "../../../src/contract/dialects.ts";
import type { HttpJob } from "../../../src/contract/job.ts";
import type { ClientContext } from "./base.ts";
import type { JobEvent } from "./calls.ts";
import { ConnectionError } from "./errors.ts";
import { backoff, invalidResponse } from "./http.ts";
import { TIMINGS } from "./timings.ts";
import type { SdkJob } from "./types.ts";
import { FINAL_STATUSES } from "./wait.ts";

/** What streaming needs of the client; `maxRetries` counts connections in a row that end without an event. */
export type EventsDeps = Pick<ClientContext, "request" | "sleep" | "random" | "maxRetries">;

/** One dispatched message of an event stream. */
export interface EventMessage {
  event: string;
  data: string;
}

/** What outlives a connection: the last event id and the reconnection delay the server set. */
export interface StreamState {
  lastEventId?: string;
  retryMs?: number;
}

/** The job's events until `end`; `path` is the job's events path, already checked. */
export async function* streamJobEvents(deps: EventsDeps, jobId: string, path: string, signal?: AbortSignal): AsyncGenerator<JobEvent, void, undefined> {
  const state: StreamState = {};
  let last: SdkJob | undefined;
  let playable = false;
  let silent = 0; // connections in a row that brought no event
  for (;;) {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (state.lastEventId) headers["Last-Event-ID"] = state.lastEventId;
    const response = await deps.request.stream({ method: "GET", path, headers, signal });
    if (!/^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "")) {
      throw invalidResponse(response, "an event stream (text/event-stream)", await response.text());
    }
    let heard = false;
    let broken: StreamBroken | undefined;
    try {
      for await (const message of readEventStream(response.body, state, signal)) {
        if (message.event !== "progress" && message.event !== "playable" && message.event !== "end") continue; // unknown events are ignored, as by an EventSource
        const job = eventJob(response, message, jobId);
        heard = true;
        if (message.event === "playable") {
          // Each connection announces it; it is yielded once.
          if (!playable) yield { event: "playable", job };
          playable = true;
          continue;
        }
        if (message.event === "end") {
          yield { event: "end", job };
          return;
        }
        if (last?.status === job.status && last.progress === job.progress) continue; // a new connection's first state, already seen
        last = job;
        yield { event: "progress", job };
      }
    } catch (error) {
      if (!(error instanceof StreamBroken)) throw error;
      broken = error;
    }
    silent = heard ? 0 : silent + 1;
    if (silent > deps.maxRetries) {
      const why = broken ? ` (last: ${broken.message})` : "";
      throw new ConnectionError(`The event stream of job ${jobId} ended ${silent} times in a row without an event${why}`, { cause: broken?.cause ?? broken });
    }
    const delay = Math.max(state.retryMs ?? 0, silent > 0 ? backoff(silent - 1, deps.random) : 0);
    if (delay > 0) await deps.sleep(delay, signal);
  }
}

/** The job an event carries, checked to be the job asked for (and final in `end`). */
function eventJob(response: Response, message: EventMessage, jobId: string): SdkJob {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    // reported below
  }
  const job = typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Partial<HttpJob>) : undefined;
  const ok = job?.id === jobId && typeof job.status === "string" && typeof job.type === "string";
  const sdkJob = ok ? toSdkJob(job as HttpJob) : undefined;
  if (!sdkJob || (message.event === "end" && !FINAL_STATUSES.has(sdkJob.status))) {
    const expected = `job ${jobId}${message.event === "end" ? ", finished," : ""} as JSON in the \`${message.event}\` event`;
    throw invalidResponse(response, expected, message.data);
  }
  return sdkJob;
}

/** The connection failed or fell silent: connect again. */
class StreamBroken extends Error {
  override name = "StreamBroken";
}

/**
 * The messages of an event stream, parsed as the HTML standard's "event stream
 * interpretation" says: lines end in CRLF, LF or CR; `:` starts a comment; `data` lines
 * join with LF; a blank line dispatches; an event cut off by the end of the stream is
 * dropped. `id` and `retry` go into `state`. Throws StreamBroken when reading fails or
 * nothing arrives for `TIMINGS.eventStreamIdleMs`; the caller's abort rejects with its reason.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array> | null,
  state: StreamState,
  signal?: AbortSignal,
): AsyncGenerator<EventMessage, void, undefined> {
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder(); // UTF-8; drops a leading byte order mark, as the standard asks
  let buffer = "";
  let event = "";
  let data: string[] = [];
  try {
    for (let done = false; !done; ) {
      const chunk = await readWithin(reader, TIMINGS.eventStreamIdleMs, signal);
      done = chunk.done;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.search(/[\r\n]/); end >= 0; end = buffer.search(/[\r\n]/)) {
        if (!done && end === buffer.length - 1 && buffer[end] === "\r") break; // its LF may be in the next chunk
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
        if (line === "") {
          if (data.length) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(line[colon + 1] === " " ? colon + 2 : colon + 1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id" && !value.includes("\0")) state.lastEventId = value;
        else if (field === "retry" && /^\d+$/.test(value)) state.retryMs = Math.min(Number(value), TIMINGS.maxRetryAfterS * 1000);
      }
    }
  } finally {
    // Ends the connection when the consumer stops early; a no-op once the body is done.
    reader.cancel().catch(() => {});
  }
}

type Reader = ReadableStreamDefaultReader<Uint8Array>;

/** The next chunk, unless the caller aborts (its reason) or nothing comes in `idleMs` (StreamBroken). */
function readWithin(reader: Reader, idleMs: number, signal?: AbortSignal): ReturnType<Reader["read"]> {
  return new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      finish();
    };
    const onAbort = () => settle(() => reject(signal?.reason));
    const timer = setTimeout(() => settle(() => reject(new StreamBroken(`nothing arrived for ${idleMs} ms`))), idleMs);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    reader.read().then(
      (chunk) => settle(() => resolve(chunk)),
      (error: unknown) => {
        const failed = () => new StreamBroken(`the connection failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        settle(() => reject(signal?.aborted ? signal.reason : failed()));
      },
    );
  });
}

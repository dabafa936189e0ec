// Pushes one attempt's events to the runner's callback (src/contract/processor-protocol.ts):
// progress when its whole percent rose since the last push and at most once per
// PROGRESS_REPORT_MS, counted from the start (the runner learnt of the start from its
// answer, so a job shorter than that pushes only its end), a heartbeat when nothing was
// sent for HEARTBEAT_MS, the final state at once. Pushes go out one at a time and each
// carries the state as it is when sent, so they arrive in order and a burst of progress is
// one push. Each push is a Durable Object request: an attempt pushes at most
// MAX_PROGRESS_PUSHES progress events, however long it runs (docs/capacity.md: what a job costs).
// A push that fails is not retried, except the final one (once): the runner asks for the
// state itself when events stop coming (docs/architecture.md: events).
// It also uploads the attempt's outputs to the callback's `outputs`, straight into R2,
// before the final state goes, each once the pushes before it are answered; an upload cut
// off or answered 5xx is sent again.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import {
  PROCESSOR_EVENTS_PATH,
  PROCESSOR_PLAYABLE_PATH,
  PROCESSOR_PROTOCOL_VERSION,
  PROTOCOL_HEADER,
  protocolMismatch,
  type ProcessorJobRequest,
  type ProcessorJobState,
  type ProcessorOutput,
  type ProcessorPlayable,
} from "../../src/contract/processor-protocol.ts";
import type { Config } from "./config.ts";
import { log } from "./log.ts";

type Callback = NonNullable<ProcessorJobRequest["callback"]>;

/** One output file to upload: the output as the protocol names it, and where it is on disk. */
export type OutputFile = ProcessorOutput & { path: string };

/** Told when a try has had no answer after `afterMs`: the push path is checked then (push-path.ts), not only once the try times out. */
type Slow = { afterMs: number; doubt: () => void };

/**
 * Sends a request to the runner up to `tries` times: again after an error (a connection
 * lost, a timeout) or a 5xx. The last answer's status, or the last error thrown. A 409
 * that says the runner speaks another protocol version is logged as the error it is.
 */
async function callRunner(url: string, init: () => RequestInit, tries: number, timeoutMs: number, slow: Slow, signal?: AbortSignal): Promise<number> {
  for (let i = 1; ; i++) {
    const doubt = setTimeout(slow.doubt, slow.afterMs);
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const request = init();
      const headers = new Headers(request.headers);
      headers.set(PROTOCOL_HEADER, String(PROCESSOR_PROTOCOL_VERSION));
      const response = await fetch(url, { ...request, headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      if (response.status === 409) await logMismatch(url, response);
      else await response.body?.cancel();
      if (response.status < 500 || i === tries) return response.status;
    } catch (error) {
      if (i === tries || signal?.aborted) throw error;
    } finally {
      clearTimeout(doubt);
    }
  }
}

async function logMismatch(url: string, response: Response): Promise<void> {
  const body = protocolMismatch.safeParse(await response.json().catch(() => undefined));
  if (body.success) log("error", "the runner speaks another protocol version; nothing more goes to it", { url, processor: body.data.processor, worker: body.data.worker });
}

/**
 * Progress while running is a whole percent from 0 to 99 (jobs.ts), and a progress push
 * goes only when it rose: at most this many per attempt, whatever its duration.
 */
export const MAX_PROGRESS_PUSHES = 99;

/** Where an announcement goes: beside the events, under the same origin and path prefix (a Worker mounted under one). */
export function playableUrl(eventsUrl: string): string {
  const url = new URL(eventsUrl);
  url.pathname = url.pathname.endsWith(PROCESSOR_EVENTS_PATH) ? url.pathname.slice(0, -PROCESSOR_EVENTS_PATH.length) + PROCESSOR_PLAYABLE_PATH : PROCESSOR_PLAYABLE_PATH;
  return url.href;
}

/** Resolves when `promise` settles or `signal` aborts, whichever comes first; never rejects. */
function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}

export class EventPusher {
  readonly #callback: Callback;
  readonly #config: Config;
  readonly #state: () => ProcessorJobState;
  #chain: Promise<void> = Promise.resolve();
  /** The start's answer counts as the first report. */
  #lastSentAt = Date.now();
  /** The whole percent the last push carried at least (the start's answer said 0). */
  #pushedProgress = 0;
  #progressTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  #stopped = false;
  /** The runner answered 409 (it no longer holds the attempt): nothing more goes out, not even what is queued. */
  #refused = false;

  /** Told of each push or upload that failed or is slow to be answered (push-path.ts checks the route again). */
  readonly #failed: (url: string) => void;

  constructor(callback: Callback, config: Config, state: () => ProcessorJobState, failed: (url: string) => void = () => {}) {
    this.#callback = callback;
    this.#config = config;
    this.#state = state;
    this.#failed = failed;
    this.#heartbeat = setInterval(() => {
      if (Date.now() - this.#lastSentAt >= config.HEARTBEAT_MS / 2) this.#push(false);
    }, config.HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /**
   * Progress changed: pushed now, or at the end of the current report period, if its whole
   * percent is then above what the last push carried (a heartbeat meanwhile may have).
   */
  progressed(): void {
    if (this.#stopped || this.#progressTimer) return;
    const pushIfRose = () => {
      if (!this.#stopped && Math.floor(this.#state().progress) > this.#pushedProgress) this.#push(false);
    };
    const wait = this.#lastSentAt + this.#config.PROGRESS_REPORT_MS - Date.now();
    if (wait <= 0) return pushIfRose();
    this.#progressTimer = setTimeout(() => {
      this.#progressTimer = undefined;
      pushIfRose();
    }, wait);
    this.#progressTimer.unref();
  }

  /** The attempt ended: its final state goes now (unless pushes were stopped), and nothing after it. Resolves once sent (or given up). */
  finished(): Promise<void> {
    if (this.#stopped) return this.#chain;
    this.stop();
    this.#push(true);
    return this.#chain;
  }

  /** No more pushes, not even the final state (the attempt was removed, or the runner no longer holds it). */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#progressTimer);
    this.#progressTimer = undefined;
  }

  /**
   * Uploads one output (PUT <callback.outputs>/<name>) and says how it went: "stored" in
   * R2; "refused" when the runner no longer holds the attempt (nothing more goes out);
   * "not stored" otherwise (logged; the runner then copies it from this processor).
   */
  async upload(output: OutputFile, signal: AbortSignal): Promise<"stored" | "refused" | "not stored"> {
    // After the pushes already on their way: a 409 among them stops this upload before any
    // byte goes, and the runner learns of the attempt in the order it went. A push waits at
    // most EVENT_TIMEOUT_MS, and one unanswered for PUSH_PATH_CHECK_TIMEOUT_MS has the path
    // checked, whose break aborts `signal`.
    await settledOrAborted(this.#chain, signal);
    if (this.#refused) return "refused";
    if (signal.aborted) return "not stored";
    const url = `${this.#callback.outputs}/${encodeURIComponent(output.name)}`;
    const headers = { "content-type": output.contentType, "content-length": String(output.size), authorization: `Bearer ${this.#callback.token}` };
    // A slow link must not time out a large output: the limit grows with its size.
    const timeoutMs = this.#config.EVENT_TIMEOUT_MS + Math.ceil((output.size / this.#config.OUTPUT_UPLOAD_MIN_BYTES_PER_S) * 1000);
    // Each try reads the file afresh.
    const init = (): RequestInit => ({ method: "PUT", headers, body: Readable.toWeb(createReadStream(output.path)) as ReadableStream, duplex: "half" }) as RequestInit;
    try {
      const status = await callRunner(url, init, this.#config.OUTPUT_UPLOAD_TRIES, timeoutMs, this.#slow(), signal);
      if (status === 201) return "stored";
      if (status === 409) {
        this.#refuse();
        return "refused";
      }
      log("warn", "output upload refused; the runner will copy it", { job: this.#state().id, output: output.name, status });
    } catch (error) {
      if (!signal.aborted) {
        log("warn", "output upload failed; the runner will copy it", { job: this.#state().id, output: output.name, error: String(error) });
        this.#failed(this.#callback.url);
      }
    }
    return "not stored";
  }

  /**
   * Announces the job playable (POST playableUrl(callback.url)), after the
   * pushes and uploads before it, sent again once on an error or a 5xx: whether the runner took it.
   * A 409 (the runner no longer holds the attempt) stops everything, as for an upload.
   */
  async playable(body: ProcessorPlayable, signal: AbortSignal): Promise<boolean> {
    await settledOrAborted(this.#chain, signal);
    if (this.#refused || signal.aborted) return false;
    const url = playableUrl(this.#callback.url);
    const init = (): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.#callback.token}` },
      body: JSON.stringify(body),
    });
    try {
      const status = await callRunner(url, init, 2, this.#config.EVENT_TIMEOUT_MS, this.#slow(), signal);
      if (status === 409) this.#refuse();
      if (status === 204) return true;
      log("warn", "playable announcement refused", { job: body.id, status });
    } catch (error) {
      if (!signal.aborted) log("warn", "playable announcement failed", { job: body.id, error: String(error) });
    }
    return false;
  }

  /**
   * A try unanswered after PUSH_PATH_CHECK_TIMEOUT_MS has the path checked: a route that
   * swallows requests is found broken in seconds, not after EVENT_TIMEOUT_MS per try (a
   * large upload that is merely slow costs one check, which finds the path working).
   */
  #slow(): Slow {
    return { afterMs: this.#config.PUSH_PATH_CHECK_TIMEOUT_MS, doubt: () => this.#failed(this.#callback.url) };
  }

  /** The runner answered 409: it no longer holds the attempt, so nothing more goes out, not even what is queued. */
  #refuse(): void {
    this.#refused = true;
    this.stop();
  }

  #push(final: boolean): void {
    this.#lastSentAt = Date.now();
    // What this push carries at least: it reads the state when it goes, never earlier.
    this.#pushedProgress = Math.max(this.#pushedProgress, Math.floor(this.#state().progress));
    this.#chain = this.#chain.then(async () => {
      if (this.#refused) return;
      const init = (): RequestInit => ({
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.#callback.token}` },
        body: JSON.stringify(this.#state()),
      });
      try {
        const status = await callRunner(this.#callback.url, init, final ? 2 : 1, this.#config.EVENT_TIMEOUT_MS, this.#slow());
        if (status === 409) this.#refuse();
      } catch (error) {
        log("warn", "event push failed; the runner will ask", { job: this.#state().id, error: String(error) });
        this.#failed(this.#callback.url);
      }
    });
  }
}

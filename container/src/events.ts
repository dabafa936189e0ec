// Pushes one attempt's events to the runner's callback (src/contract/processor-protocol.ts):
// progress at most once per PROGRESS_REPORT_MS, a heartbeat when nothing was sent for
// HEARTBEAT_MS, the final state at once. Pushes go out one at a time and each carries the
// state as it is when sent, so they arrive in order and a burst of progress is one push.
// A push that fails is not retried, except the final one (once): the runner asks for the
// state itself when events stop coming (docs/architecture.md: events).
import type { ProcessorJobRequest, ProcessorJobState } from "../../src/contract/processor-protocol.ts";
import type { Config } from "./config.ts";
import { log } from "./log.ts";

type Callback = NonNullable<ProcessorJobRequest["callback"]>;

export class EventPusher {
  readonly #callback: Callback;
  readonly #config: Config;
  readonly #state: () => ProcessorJobState;
  #chain: Promise<void> = Promise.resolve();
  #lastSentAt = 0;
  #progressTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  #stopped = false;
  /** The runner answered 409: it no longer holds the attempt, so nothing more goes out, not even what is queued. */
  #refused = false;

  constructor(callback: Callback, config: Config, state: () => ProcessorJobState) {
    this.#callback = callback;
    this.#config = config;
    this.#state = state;
    this.#heartbeat = setInterval(() => {
      if (Date.now() - this.#lastSentAt >= config.HEARTBEAT_MS / 2) this.#push(false);
    }, config.HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** Progress changed: pushed now, or at the end of the current report period. */
  progressed(): void {
    if (this.#stopped || this.#progressTimer) return;
    const wait = this.#lastSentAt + this.#config.PROGRESS_REPORT_MS - Date.now();
    if (wait <= 0) return this.#push(false);
    this.#progressTimer = setTimeout(() => {
      this.#progressTimer = undefined;
      if (!this.#stopped) this.#push(false);
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

  #push(final: boolean): void {
    this.#lastSentAt = Date.now();
    this.#chain = this.#chain.then(async () => {
      if (this.#refused) return;
      const tries = final ? 2 : 1;
      for (let i = 1; i <= tries; i++) {
        try {
          const response = await fetch(this.#callback.url, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${this.#callback.token}` },
            body: JSON.stringify(this.#state()),
            signal: AbortSignal.timeout(this.#config.EVENT_TIMEOUT_MS),
          });
          await response.body?.cancel();
          // 409: the runner no longer holds this attempt; nothing more to tell it.
          if (response.status === 409) {
            this.#refused = true;
            return this.stop();
          }
          if (response.ok || response.status < 500) return;
        } catch (error) {
          if (i === tries) log("warn", "event push failed; the runner will ask", { job: this.#state().id, error: String(error) });
        }
      }
    });
  }
}

// Whether this processor's events and uploads reach the runner (the protocol's `pushPath`),
// checked so that a broken route shows in seconds, not as a silence in every job.
import type { PushPath } from "../../src/contract/processor-protocol.ts";
import type { Config } from "./config.ts";
import { log } from "./log.ts";

type Limits = Pick<Config, "PUSH_PATH_CHECK_TIMEOUT_MS" | "PUSH_PATH_RECHECK_MS">;

/**
 * The push path per callback event URL: checked when a start first names it, when a push or
 * upload fails or goes unanswered, when /status is asked to, and at a start while broken.
 */
export class PushPaths {
  readonly #config: Limits;
  readonly #known = new Map<string, PushPath>();
  readonly #checking = new Map<string, Promise<PushPath>>();
  /** The event URL the latest start's callback named: in production the only one. */
  #latest: string | undefined;
  /** Aborted when the path of its event URL is found broken (brokenSignal). */
  readonly #whenBroken = new Map<string, AbortController>();

  constructor(config: Limits) {
    this.#config = config;
  }

  /**
   * The push path to the event URL `callbackUrl`, as a start answers it: checked first when it
   * is new, or broken and last checked PUSH_PATH_RECHECK_MS ago (a start waits for that, at
   * most PUSH_PATH_CHECK_TIMEOUT_MS); known otherwise.
   */
  async forStart(callbackUrl: string): Promise<PushPath> {
    this.#latest = callbackUrl;
    const known = this.#known.get(callbackUrl);
    if (known && (known.ok || Date.now() - known.checkedAt < this.#config.PUSH_PATH_RECHECK_MS)) return known;
    return this.check(callbackUrl);
  }

  /** A push or an upload of the callback whose events go to `eventUrl` failed: it is checked again, in the background. */
  pushFailed(eventUrl: string): void {
    void this.check(eventUrl);
  }

  /**
   * A signal aborted once the path to `eventUrl` is found broken, at once when it is known
   * to be: uploads under way stop waiting for a route that does not answer, and the runner
   * copies what they did not store.
   */
  brokenSignal(eventUrl: string): AbortSignal {
    if (this.#known.get(eventUrl)?.ok === false) return AbortSignal.abort(new Error("the push path is broken"));
    let controller = this.#whenBroken.get(eventUrl);
    if (!controller) this.#whenBroken.set(eventUrl, (controller = new AbortController()));
    return controller.signal;
  }

  /** The push path of the latest start's callback (GET /status, GET /jobs/:id); undefined before any start with a callback. */
  get latest(): PushPath | undefined {
    return this.#latest === undefined ? undefined : this.#known.get(this.#latest);
  }

  /**
   * One GET of the event URL, without a token: any answer below 500 means
   * the route works (the Worker answers a GET there 405, src/runner/events.ts); no answer
   * (a name that does not resolve, a refused connection, a timeout) or a 5xx means it does
   * not. One check per URL at a time; a change is logged, a break as an error.
   */
  check(eventUrl: string): Promise<PushPath> {
    const running = this.#checking.get(eventUrl);
    if (running) return running;
    const timeoutMs = this.#config.PUSH_PATH_CHECK_TIMEOUT_MS;
    const checking = fetch(eventUrl, { signal: AbortSignal.timeout(timeoutMs) })
      .then(async (response): Promise<PushPath> => {
        await response.body?.cancel();
        return response.status < 500 ? { ok: true, checkedAt: Date.now() } : { ok: false, error: `the runner's origin answered ${response.status}`, checkedAt: Date.now() };
      })
      .catch((error: unknown): PushPath => ({ ok: false, error: describe(error, timeoutMs), checkedAt: Date.now() }))
      .then((state) => {
        const before = this.#known.get(eventUrl);
        this.#known.set(eventUrl, state);
        const origin = new URL(eventUrl).origin;
        if (!state.ok) {
          this.#whenBroken.get(eventUrl)?.abort(new Error("the push path is broken"));
          this.#whenBroken.delete(eventUrl);
        }
        if (!state.ok && before?.ok !== false) log("error", "push path broken: events and outputs cannot reach the runner, which polls instead", { origin, error: state.error });
        if (state.ok && before?.ok === false) log("info", "push path works again", { origin });
        return state;
      })
      .finally(() => this.#checking.delete(eventUrl));
    this.#checking.set(eventUrl, checking);
    return checking;
  }
}

/** Why a request got no answer, in a few words: Node's fetch puts the reason (ENOTFOUND, ECONNREFUSED) in `cause`. */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; hostname?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.hostname ? ` ${cause.hostname}` : ""}`;
  return String(cause?.message ?? (error as Error)?.message ?? error);
}

// JobRunner: one Durable Object per job, holding its live lease while it waits for a seat,
// starts an attempt on a processor and follows it to its end (docs/architecture.md: the runner).
import { DurableObject } from "cloudflare:workers";
import type { ProcessorJobState } from "../contract/processor-protocol.ts";
import { database, type Db } from "../db/client.ts";
import { findJob, recordProgress, startAttempt, type JobTimings } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { processorPool } from "../limits/processor-pool.ts";
import { configureLogging, log } from "../lib/log.ts";
import { tunablesFor, type Tunables } from "../lib/tunables.ts";
import { describe, reportConfigProblems } from "../ops/config.ts";
import { afterFailedCall, afterNoContainer, afterRefusedStart, attemptTimings, heardFrom, newAttempt, withProgress, type Attempt } from "./attempt.ts";
import { attemptEnded, type AttemptEnd } from "./attempt-end.ts";
import { checkPresented, newAttemptToken, type AttemptCheck, type Presented } from "./credentials.ts";
import { finishJob, type Outcome } from "./finish.ts";
import { collectOutputs, discardOutputs } from "./outputs.ts";
import { askProcessor, ProcessorAnswerError, ProcessorDrainingError, releaseOnProcessor, startOnProcessor } from "./processor-calls.ts";
import { seatRequest, stillWaiting, waitingAt, type SeatRequest } from "./seat.ts";
import { ContainerUnavailable } from "./transport.ts";
import { alarmAt, fromOldKeys, heldAttempt, jobOf, STATE_KEY, type RunnerState, type WithAttempt } from "./state.ts";

export type { Attempt } from "./attempt.ts";
export type { RunnerState } from "./state.ts";

/** A queued job as its limiter hands it to the runner: enough to ask for a seat without reading its row. */
export type QueuedJob = Pick<SeatRequest, "orgId" | "priority" | "createdAt">;

type Ending = Extract<RunnerState, { phase: "ending" }>;

export class JobRunner extends DurableObject<Env> {
  /** The attempt whose end is being handled now. Read only by #holding: the one re-entrancy guard. */
  #ending: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureLogging(env);
  }

  #db(): Db {
    return database(this.env.DB);
  }

  /** TUNABLES, or a test's TUNABLES_OVERRIDE (src/lib/tunables.ts), read at each use so a test may swap `env`. */
  #tunables(): Tunables {
    return tunablesFor(this.env);
  }

  /** The state; an older deploy's keys are converted once. */
  async #load(): Promise<RunnerState | undefined> {
    const stored = await this.ctx.storage.get<unknown>([STATE_KEY, "seatRequest", "attempt", "final"]);
    if (stored.has(STATE_KEY) || stored.size === 0) return stored.get(STATE_KEY) as RunnerState | undefined;
    const state = fromOldKeys(Object.fromEntries(stored), Date.now());
    await this.ctx.storage.deleteAll();
    if (state) await this.#save(state);
    return state;
  }

  /** The one writer of the runner's storage and alarm: the state and the alarm it implies, or (undefined) nothing. */
  async #save(state: RunnerState | undefined): Promise<void> {
    if (!state) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.put(STATE_KEY, state);
    await this.ctx.storage.setAlarm(alarmAt(state, this.#tunables()));
  }

  /**
   * The state while it holds attempt `pid` and that attempt's end is not being handled, else
   * undefined: the one re-entrancy check, made after every wait on the processor or D1.
   */
  async #holding(pid: string): Promise<WithAttempt | undefined> {
    const state = await this.#load();
    return heldAttempt(state)?.pid === pid && this.#ending !== pid ? (state as WithAttempt) : undefined;
  }

  /**
   * Starts the job if it is still queued; called by the limiter once the job has a slot.
   * Safe to call any number of times. True while the job runs here (it holds its slot).
   * With `queued` (the job as the limiter has it) nothing is read before the job asks for
   * a seat: a job that is no longer queued is refused by the guarded update that begins
   * its attempt (the job was created `queued` at attempt 0 and never goes back to it).
   */
  async start(jobId: string, queued?: QueuedJob): Promise<boolean> {
    if (await this.#load()) return true;
    // Thrown, not returned: the limiter keeps the job waiting and retries it later, so a
    // missing secret costs no attempt and takes no seat (docs/deploy.md: configuration).
    const problems = reportConfigProblems(this.env, "job start");
    if (problems.length > 0) throw new Error(`configuration is unusable: ${describe(problems)}`);
    const request = queued ? { ...queued, jobId, previousAttempt: 0 } : await this.#queuedRequest(jobId);
    return request ? this.#seat(request) : false;
  }

  /** The pool gives this job a seat on `instance`: the attempt begins. False when the job will not run. */
  async seated(jobId: string, instance: string): Promise<boolean> {
    const state = await this.#load();
    if (state && state.phase !== "waiting") return heldAttempt(state)?.instance === instance;
    const request = state?.request ?? (await this.#queuedRequest(jobId));
    if (request && (await this.#begin(request, instance))) return true;
    // The pool takes its seat back itself; forgotten only if nothing moved the runner on meanwhile.
    if (state && (await this.#unmoved(state))) await this.#save(undefined);
    return false;
  }

  /** Asked by the pool before it reclaims a seat: true while an attempt here runs on it. */
  async holdsSeat(instance: string): Promise<boolean> {
    return heldAttempt(await this.#load())?.instance === instance;
  }

  /**
   * Asked once per output the processor uploads (src/runner/output-upload.ts) before it is
   * stored, and per read of its input (input-read.ts): "held" while attempt `pid` is the one
   * this runner holds and the request presents its token, from its seat's container
   * (checkPresented; logged when not).
   */
  async holdsAttempt(pid: string, presented: Presented): Promise<AttemptCheck> {
    const current = heldAttempt(await this.#load());
    // In a container the sender is the outbound handler's ctx.containerId, the id of the
    // ProcessorContainer that sent it (@cloudflare/containers dist/lib/container.js:
    // ContainerProxy.fetch, `containerId: this.ctx.id.toString()`); locally none is known.
    const sender = current && !this.env.PROCESSOR_URL ? this.env.PROCESSOR.idFromName(current.instance).toString() : undefined;
    const check = await checkPresented(current, pid, presented, sender);
    // Not a stale processor (a token is never reused): something presented what is not the attempt's.
    if (check === "wrong token" || check === "wrong sender") log("error", `processor request refused: ${check}`, { job: current?.jobId, attempt: current?.attempt, instance: current?.instance, sender: presented.sender });
    return check;
  }

  /**
   * Asked by the limiter before it reclaims the job's slot: true while this runner has the
   * job (an attempt runs, or it waits for a seat). Reads only this object's storage.
   */
  async holds(jobId: string): Promise<boolean> {
    const state = await this.#load();
    return !!state && jobOf(state) === jobId;
  }

  /** Stops the job's processor work; the row was already marked cancelled by the caller. */
  async cancel(): Promise<void> {
    const state = await this.#load();
    if (state) await this.#letGo(state, "cancel");
  }

  /**
   * An event the processor pushed (src/runner/events.ts), taken only when holdsAttempt says
   * "held" (else its answer). Progress is taken at once; a final state is kept, then handled
   * before the push is answered (its outputs checked, the job ended), the alarm kept as the
   * backstop; the processor waits for that answer only up to its EVENT_TIMEOUT_MS.
   */
  async event(pushed: ProcessorJobState, presented: Presented): Promise<AttemptCheck> {
    const check = await this.holdsAttempt(pushed.id, presented);
    if (check !== "held") return check;
    // An event can overtake the answer to the start: the processor has the attempt.
    const state = await this.#holding(pushed.id);
    if (state) await this.#heard(state, pushed, "push");
    return "held";
  }

  /** The poke of the sweeper: true if this runner still has the job at `attempt`, and then it checks on it now. */
  async poke(attempt: number): Promise<boolean> {
    const state = await this.#load();
    const at = state?.phase === "waiting" ? waitingAt(state.request) : state?.phase === "leaving" ? state.attempt?.attempt : state?.attempt.attempt;
    if (at !== attempt) return false;
    // Its alarm may have been lost: do what it would have done.
    await this.alarm();
    return true;
  }

  /** What the state's phase waits for: a seat, an acknowledged start, news of the attempt, its end recorded, or letting go. */
  override async alarm(): Promise<void> {
    const state = await this.#load();
    if (!state) return;
    if (state.phase === "waiting") return this.#askForSeatAgain(state.request);
    if (state.phase === "leaving") return this.#letGo(state, state.how);
    const current = await this.#holding(state.attempt.pid);
    if (!current) return;
    try {
      if (current.phase === "ending") return await this.#recordEnd(current);
      if (current.phase === "running") return await this.#check(current);
      const job = await findJob(this.#db(), current.attempt.jobId);
      if (!job || job.status !== "processing" || job.attempt !== current.attempt.attempt) return await this.#letGo(current, "delete");
      await this.#sendStart(current.attempt, job);
    } catch (error) {
      log("error", "runner check crashed", { job: current.attempt.jobId, attempt: current.attempt.attempt, error: String(error) });
      const still = await this.#holding(current.attempt.pid);
      if (still) await this.#failedCall(still);
    }
  }

  async #queuedRequest(jobId: string): Promise<SeatRequest | undefined> {
    const job = await findJob(this.#db(), jobId);
    return job?.status === "queued" ? seatRequest(job, job.attempt) : undefined;
  }

  /** Takes a seat and begins, or waits for the pool to call `seated` (true: the job is this runner's). */
  async #seat(request: SeatRequest): Promise<boolean> {
    // Saved before the call: the pool may call `seated` before `acquire` returns.
    await this.#save({ phase: "waiting", request, since: Date.now() });
    const instance = await processorPool(this.env).acquire({ jobId: request.jobId, orgId: request.orgId, priority: request.priority, createdAt: request.createdAt });
    const state = await this.#load();
    // Seated meanwhile (the attempt began there), or cancelled: either way not ours to begin.
    if (state?.phase !== "waiting") return !!state;
    if (instance === null) return true;
    if (await this.#begin(request, instance)) return true;
    if (await this.#unmoved(state)) await this.#letGo(state, "delete");
    return false;
  }

  /** Whether the runner is still in the `waiting` state it was in (not begun, cancelled or re-seated meanwhile); seat.ts `stillWaiting` asks D1 whether the job still waits. */
  async #unmoved(state: Extract<RunnerState, { phase: "waiting" }>): Promise<boolean> {
    const current = await this.#load();
    return current?.phase === "waiting" && current.since === state.since;
  }

  /** The alarm while the job waits for a seat: asks again, or gives up its place when the job ended meanwhile. */
  async #askForSeatAgain(request: SeatRequest): Promise<void> {
    const job = await findJob(this.#db(), request.jobId);
    if (stillWaiting(request, job)) await this.#seat(request);
    else await this.#letGo({ phase: "waiting", request, since: Date.now() }, "delete");
  }

  /**
   * Begins the attempt after `request.previousAttempt` on `instance` (or, when a draining
   * processor refused its start, starts that same attempt there); false when the job is no longer at it.
   */
  async #begin(request: SeatRequest, instance: string): Promise<boolean> {
    const now = Date.now();
    const job = request.refused ? await findJob(this.#db(), request.jobId) : await startAttempt(this.#db(), request.jobId, request.previousAttempt, now);
    // The pool's `seated` and this runner's own `#seat` may both begin the same seat (D1 let
    // the other in): the first to get here begins it; the other finds it begun. Nothing but
    // storage is awaited from here to the `starting` state saved, so no third call interleaves.
    const current = await this.#load();
    if (current && current.phase !== "waiting") return heldAttempt(current)?.instance === instance;
    if (!job || (request.refused && !stillWaiting(request, job))) return false;
    const attempt = { ...newAttempt(job, instance, newAttemptToken(), request.handBacks ?? 0, now), ...(request.refusedSince ? { refusedSince: request.refusedSince } : {}) };
    log("info", "attempt started", { job: job.id, attempt: attempt.attempt, instance, ...(request.refused ? { again: "its last start was refused by a processor that will not run it" } : {}) });
    await this.#sendStart(attempt, job);
    return true;
  }

  /**
   * Hands the attempt to the processor, with the callback its events go to. Starting is
   * idempotent on the attempt id, so a start that failed (refused, unreachable, connection
   * lost) is sent again by the next alarm instead of asking for an attempt the processor
   * never had; after TUNABLES.runner.maxCallFailures in a row the attempt counts as lost.
   */
  async #sendStart(attempt: Attempt, job: Pick<JobRow, "type" | "params">): Promise<void> {
    // The watchdog first (saving `starting` arms it): if this invocation dies, the start is sent again.
    await this.#save({ phase: "starting", attempt, since: Date.now() });
    try {
      const answer = await startOnProcessor(this.env, attempt, job);
      // An event may have moved the attempt on (or ended it) while the start was in flight.
      const state = await this.#holding(attempt.pid);
      if (state?.phase === "starting") await this.#heard(state, answer, "check");
    } catch (error) {
      const state = await this.#holding(attempt.pid);
      // A processor going away (draining), or of another protocol version (an old container
      // during a rollout, already logged naming both versions), will not run it: the same
      // attempt is seated elsewhere, and the pool seats nothing more on that instance.
      // An answer naming no version at all (a proxy's 502, a wrong PROCESSOR_URL) is no processor's: a failed call.
      const otherVersion = error instanceof ProcessorAnswerError && error.versions?.processor !== undefined && error.versions.processor !== null;
      const why = error instanceof ProcessorDrainingError ? "draining" : otherVersion ? "another protocol version" : undefined;
      if (why) {
        if (state?.phase === "starting") await this.#startRefused(state, why);
        return;
      }
      if (state?.phase !== "starting") return;
      // The platform had no container for it (provisioning, the instance limit, a start that
      // failed): the processor never had the start, so it costs no failed call for a while.
      const waiting = error instanceof ContainerUnavailable && error.notStarted ? afterNoContainer(state.attempt, Date.now(), this.#tunables().runner) : undefined;
      if (waiting) {
        log("warn", "no container for the start yet; sending it again", { job: attempt.jobId, attempt: attempt.attempt, instance: attempt.instance, error: String(error) });
        return this.#save({ ...state, attempt: waiting, since: Date.now() });
      }
      log("warn", "processor refused or unreachable at start", { job: attempt.jobId, attempt: attempt.attempt, error: String(error) });
      await this.#failedCall(state);
    }
  }

  /**
   * The processor refused the start because it is going away (503 draining) or speaks
   * another protocol version (409 protocol_mismatch: a container still on the previous
   * image while a deploy rolls out): not a failed call and not an attempt more. The pool
   * takes the seat back and seats nothing more on that instance until its container stops
   * (processor-pool.ts `release` with `draining`); the same attempt waits for another seat.
   */
  async #startRefused(state: Extract<RunnerState, { phase: "starting" }>, why: "draining" | "another protocol version"): Promise<void> {
    const heardAt = Date.now();
    // Bounded: an image that never speaks this Worker's protocol must not keep a job waiting forever.
    const attempt = afterRefusedStart(state.attempt, Date.now(), this.#tunables().runner);
    if (attempt === "lost") {
      const minutes = Math.round(this.#tunables().runner.refusedStartDeadlineMs / 60_000);
      return this.#ended(state, { cause: "lost", reason: `no processor would start it for ${minutes} minutes (${why})` });
    }
    log("info", "processor will not start the attempt; it waits for a seat elsewhere", { job: attempt.jobId, attempt: attempt.attempt, instance: attempt.instance, why });
    const job = await findJob(this.#db(), attempt.jobId);
    const request: SeatRequest | undefined = job && { ...seatRequest(job, attempt.attempt - 1, attempt.handBacks ?? 0), refused: true, refusedSince: attempt.refusedSince };
    if (!request || !stillWaiting(request, job)) return this.#letGo(state, "delete");
    await this.#save({ phase: "waiting", request, since: Date.now() });
    await processorPool(this.env).release(attempt.jobId, { draining: true, heardAt });
    await this.#seat(request);
  }

  /** After a silence or a failed call: asks the processor for the attempt's state once. */
  async #check(state: WithAttempt): Promise<void> {
    const answer = await askProcessor(this.env, state.attempt);
    // An event may have moved the attempt on (or ended it) while the question was in flight.
    const still = await this.#holding(state.attempt.pid);
    if (!still) return;
    if (answer === "no answer") return this.#failedCall(still);
    if (answer === "unknown") return this.#ended(still, { cause: "lost", reason: "the processor lost the job (it restarted or was replaced)" });
    await this.#heard(still, answer, "check");
  }

  /**
   * A state of the attempt, pushed or answered: progress is kept; an end is kept, then
   * recorded as the alarm would (a failure while recording it is retried like any other),
   * the alarm it arms being the backstop should this invocation die.
   */
  async #heard(state: WithAttempt, answer: ProcessorJobState, how: "push" | "check"): Promise<void> {
    // Once the end is known, a late progress event changes nothing.
    if (state.phase === "ending" && answer.state === "running") return;
    const attempt = heardFrom(state.attempt, answer, Date.now());
    if (attempt.pushBroken && !state.attempt.pushBroken) {
      const error = answer.state === "running" ? answer.pushPath?.error : undefined;
      log("error", "the processor cannot push events to the runner; polling the attempt instead", { job: attempt.jobId, attempt: attempt.attempt, instance: attempt.instance, error, pollMs: this.#tunables().runner.brokenPushPollMs });
    }
    if (answer.state === "running") return this.#running(attempt, answer.progress);
    await this.#save({ phase: "ending", attempt: { ...attempt, failures: 0, endHeard: how }, final: answer, since: Date.now() });
    await this.alarm();
  }

  /** Keeps the progress, writes it to D1 at a mark (not more often than progressWriteMs), and re-arms the watchdog. */
  async #running(attempt: Attempt, progress: number): Promise<void> {
    const now = Date.now();
    const { next, write } = withProgress(attempt, progress, now, this.#tunables().runner);
    // False when the job left this attempt (cancelled): whoever did it stops this runner too.
    if (write && !(await recordProgress(this.#db(), next.jobId, next.attempt, next.progress))) return;
    await this.#save({ phase: "running", attempt: next, since: now });
  }

  /** Records the end the processor reported: outputs collected and the job completed, or what attemptEnded decides. */
  async #recordEnd(state: Ending): Promise<void> {
    const { final } = state;
    if (final.state === "completed") return this.#whileEnding(state, () => this.#collect(state, final));
    if (final.state === "failed") return this.#ended(state, { cause: "reported", error: final.error }, final.timings);
    if (final.state === "cancelled") return this.#ended(state, { cause: "handed back" });
  }

  /** Runs the attempt's end once: events and checks of that attempt that arrive meanwhile do nothing. */
  async #whileEnding(state: WithAttempt, work: () => Promise<void>): Promise<void> {
    const { pid } = state.attempt;
    const outer = this.#ending === pid;
    this.#ending = pid;
    try {
      await work();
    } finally {
      if (!outer && this.#ending === pid) this.#ending = undefined;
    }
  }

  async #failedCall(state: WithAttempt): Promise<void> {
    const next = afterFailedCall(state.attempt, this.#tunables().runner);
    if (next === "lost") return this.#ended(state, { cause: "lost", reason: "the processor stopped answering" });
    await this.#save({ ...state, attempt: next, since: Date.now() });
  }

  /** Checks the outputs in R2 (src/runner/outputs.ts) and completes the job; a failed copy of one missing is a failed call. */
  async #collect(state: Ending, final: Extract<ProcessorJobState, { state: "completed" }>): Promise<void> {
    const outcome = await collectOutputs(this.env, state.attempt, final);
    if (outcome === "retry") return this.#failedCall(state);
    if ((await this.#end(state, outcome)) || outcome.status !== "completed") return;
    // Not ended by this call. Cancelled while we checked or copied: the outputs belong to no
    // one. But a poke's alarm and the runner's own can both collect the same end, and then
    // the other one completed the job with these very outputs: they stay.
    if ((await findJob(this.#db(), state.attempt.jobId))?.status !== "completed") await discardOutputs(this.env, state.attempt.jobId, final.outputs);
  }

  /** The attempt ended otherwise than completed: the next attempt takes a seat, or the job fails (attemptEnded decides). */
  async #ended(state: WithAttempt, end: AttemptEnd, timings?: JobTimings): Promise<void> {
    await this.#whileEnding(state, async () => {
      const { attempt } = state;
      const handBacks = attempt.handBacks ?? 0;
      const decision = attemptEnded(end, { attempt: attempt.attempt, handBacks }, this.#tunables().job);
      // A processor that hands an attempt back is draining: the pool seats nothing more on it.
      const draining = end.cause === "handed back";
      if ("fail" in decision) {
        if (draining) await processorPool(this.env).release(attempt.jobId, { draining, heardAt: state.since });
        await this.#end(state, { status: "failed", attempt: attempt.attempt, error: decision.fail, timings });
        return;
      }
      log("warn", "attempt ended; the job gets another", { job: attempt.jobId, attempt: attempt.attempt, charged: decision.charged, handBacks, ...end });
      await this.#release(attempt, "delete", draining, state.since);
      const job = await findJob(this.#db(), attempt.jobId);
      // Ended elsewhere meanwhile: whoever ended it stops this runner too, and nothing is left to release.
      if (!job || job.status !== "processing" || job.attempt !== attempt.attempt) return this.#save(undefined);
      // The next attempt takes a seat like any waiting job (maybe on another instance).
      await this.#seat(seatRequest(job, attempt.attempt, decision.charged ? handBacks : handBacks + 1));
    });
  }

  /**
   * The one way out of a job: ends it with this attempt's outcome through finishJob (which
   * frees its slot) and lets go as its first follow-up, or at once when someone else had
   * ended it. True when this call ended the job.
   */
  async #end(state: WithAttempt, outcome: Outcome): Promise<boolean> {
    const letGo = () => this.#letGo(state, "delete");
    const now = Date.now();
    const timed: Outcome = outcome.status === "cancelled" ? outcome : { ...outcome, timings: attemptTimings(state.attempt, outcome.timings, now) };
    // How the end was heard: "push" when the processor's event brought it, "check" when the runner had to ask.
    const details = { endHeard: state.attempt.endHeard ?? "never", ...(state.attempt.pushBroken ? { pushBroken: true } : {}) };
    if (await finishJob(this.env, state.attempt.jobId, timed, { stop: letGo, now, details })) return true;
    await letGo();
    return false;
  }

  /**
   * Lets go of the processor's attempt (cancelled when asked, then deleted) and the seat, then
   * forgets the job. The state stays meanwhile, as `leaving`: a `cancel` that arrives then
   * still finds the attempt and returns only once it is released; events are refused.
   */
  async #letGo(state: RunnerState, how: "cancel" | "delete"): Promise<void> {
    const attempt = state.phase === "leaving" ? state.attempt : heldAttempt(state);
    await this.#save({ phase: "leaving", jobId: jobOf(state), attempt, how, since: Date.now() });
    if (attempt) await this.#release(attempt, how);
    else await processorPool(this.env).release(jobOf(state));
    await this.#save(undefined);
  }

  /** Releases the attempt on its processor (best effort), then its seat (`draining`: on an instance going away, as heard at `heardAt`). */
  async #release(attempt: Attempt, how: "cancel" | "delete", draining = false, heardAt?: number): Promise<void> {
    await releaseOnProcessor(this.env, attempt, how);
    await processorPool(this.env).release(attempt.jobId, { draining, heardAt });
  }
}

// JobRunner: one Durable Object per job, holding its live lease while it waits for a seat,
// starts an attempt on a processor and follows it to its end (docs/architecture.md: the runner).
import { DurableObject } from "cloudflare:workers";
import type { ProcessorJobState } from "../contract/processor-protocol.ts";
import type { StoredResult } from "../contract/stored-result.ts";
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
import { checkResult, collectOutputs, discardOutputs } from "./outputs.ts";
import { askProcessor, releaseOnProcessor, startOnProcessor, startRefusedBecause } from "./processor-calls.ts";
import { seatRequest, stillWaiting, waitingAt, type SeatRequest } from "./seat.ts";
import { fanoutOfferFor } from "./fanout.ts";
import { FannedJob } from "./fanned.ts";
import { ContainerUnavailable } from "./transport.ts";
import { alarmAt, fromOldKeys, hasAttempt, heldAttempt, jobOf, runsUnended, STATE_KEY, stepOf, type InPhase, type RunnerState, type WithAttempt } from "./state.ts";

export type { Attempt } from "./attempt.ts";
export type { RunnerState } from "./state.ts";

/** A queued job as its limiter hands it to the runner: enough to ask for a seat without reading its row. */
export type QueuedJob = Pick<SeatRequest, "orgId" | "priority" | "createdAt">;

export class JobRunner extends DurableObject<Env> {
  /** The attempt whose end a call is recording now (set only by #closing, read only by #resume). */
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
   * The one re-entrancy check, after every wait on the processor, the pool or D1: the state while
   * the runner is still at `step` (stepOf) and no other call records that attempt's end; else
   * undefined, and the caller leaves the rest to whoever moved the runner on.
   */
  async #resume(step: string | undefined): Promise<RunnerState | undefined> {
    const state = await this.#load();
    return step !== undefined && stepOf(state) === step && this.#ending !== step ? state : undefined;
  }

  /** Records the end of `state`'s attempt: meanwhile events, checks and alarms of that attempt do nothing (#resume). */
  async #closing<T>(state: WithAttempt, work: () => Promise<T>): Promise<T> {
    this.#ending = state.attempt.pid;
    try {
      return await work();
    } finally {
      this.#ending = undefined;
    }
  }

  /**
   * Starts the job if it is still queued; called by the limiter once the job has a slot, any
   * number of times. True while the job runs here. With `queued` nothing is read first: a job
   * no longer queued is refused by the guarded update that begins its attempt.
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
    let state = await this.#load();
    if (state && state.phase !== "waiting") return heldAttempt(state)?.instance === instance;
    if (!state) {
      // Seated while this runner had forgotten the job: it waits again, if still queued, and begins.
      const request = await this.#queuedRequest(jobId);
      if (!request) return false;
      state = { phase: "waiting", request, since: Date.now() };
      await this.#save(state);
    }
    if (await this.#begin(state, instance)) return true;
    // The pool takes its seat back itself; forgotten only if nothing moved the runner on meanwhile.
    if (await this.#resume(stepOf(state))) await this.#save(undefined);
    return false;
  }

  /** Asked by the pool before it reclaims a seat: true while an attempt here runs on it. */
  async holdsSeat(instance: string): Promise<boolean> {
    return heldAttempt(await this.#load())?.instance === instance;
  }

  /**
   * Asked per output upload (output-upload.ts), input read (input-read.ts) and event: "held"
   * while attempt `pid` is the one held here and the request presents its token, from its
   * seat's container (checkPresented; logged when not).
   */
  async holdsAttempt(pid: string, presented: Presented): Promise<AttemptCheck> {
    const current = heldAttempt(await this.#load());
    // In a container, the outbound handler's ctx.containerId: its ProcessorContainer's id
    // (@cloudflare/containers ContainerProxy.fetch, `containerId: this.ctx.id.toString()`); locally none.
    const sender = current && !this.env.PROCESSOR_URL ? this.env.PROCESSOR.idFromName(current.instance).toString() : undefined;
    const check = await checkPresented(current, pid, presented, sender);
    // Not a stale processor (a token is never reused): something presented what is not the attempt's.
    if (check === "wrong token" || check === "wrong sender") log("error", `processor request refused: ${check}`, { job: current?.jobId, attempt: current?.attempt, instance: current?.instance, sender: presented.sender });
    return check;
  }

  /** Asked by the limiter before it reclaims the job's slot: true until this runner has let go of the job. */
  async holds(jobId: string): Promise<boolean> {
    const state = await this.#load();
    return !!state && jobOf(state) === jobId;
  }

  /** Stops the job's processor work; the row was already marked cancelled by the caller. */
  async cancel(): Promise<void> {
    const state = await this.#load();
    if (state) await this.#letGo(state, "cancel");
  }

  /** A part of this fanned-out job ended (finishJob, for the part): the next part starts, or the stitch, or the job fails. */
  async partEnded(partId: string): Promise<void> {
    const state = await this.#load();
    if (state?.phase === "fanned") await this.#fanned.advance(state);
    else log("debug", "a part ended after its job moved on", { job: state ? jobOf(state) : undefined, part: partId });
  }

  /** An event the processor pushed (src/runner/events.ts), taken only when "held"; an end is handled before the push is answered. */
  async event(pushed: ProcessorJobState, presented: Presented): Promise<AttemptCheck> {
    const check = await this.holdsAttempt(pushed.id, presented);
    if (check !== "held") return check;
    // An event can overtake the answer to the start: the processor has the attempt.
    const state = await this.#resume(pushed.id);
    if (hasAttempt(state)) await this.#heard(state, pushed, "push");
    return "held";
  }

  /** The poke of the sweeper: true if this runner still has the job at `attempt`, and then it checks on it now. */
  async poke(attempt: number): Promise<boolean> {
    const state = await this.#load();
    const at = state?.phase === "waiting" ? waitingAt(state.request) : state?.phase === "leaving" ? state.attempt?.attempt : state?.phase === "fanned" ? state.planAttempt : state?.attempt.attempt;
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
    if (state.phase === "fanned") return this.#fanned.advance(state);
    const current = await this.#resume(state.attempt.pid);
    if (!hasAttempt(current)) return;
    try {
      if (current.phase === "ending") return await this.#recordEnd(current);
      if (current.phase === "running") return await this.#check(current);
      const job = await findJob(this.#db(), current.attempt.jobId);
      if (!job || job.status !== "processing" || job.attempt !== current.attempt.attempt) return await this.#letGo(current, "delete");
      await this.#sendStart(current.attempt, job);
    } catch (error) {
      log("error", "runner check crashed", { job: current.attempt.jobId, attempt: current.attempt.attempt, error: String(error) });
      const still = await this.#resume(current.attempt.pid);
      if (hasAttempt(still)) await this.#failedCall(still);
    }
  }

  async #queuedRequest(jobId: string): Promise<SeatRequest | undefined> {
    const job = await findJob(this.#db(), jobId);
    return job?.status === "queued" ? seatRequest(job, job.attempt) : undefined;
  }

  /** Takes a seat and begins, or waits for the pool to call `seated` (true: the job is this runner's). */
  async #seat(request: SeatRequest): Promise<boolean> {
    // Saved before the call: the pool may call `seated` before `acquire` returns.
    const waiting: InPhase<"waiting"> = { phase: "waiting", request, since: Date.now() };
    await this.#save(waiting);
    const instance = await processorPool(this.env).acquire({ jobId: request.jobId, orgId: request.orgId, priority: request.priority, createdAt: request.createdAt, extra: request.extra, cpu: request.cpu });
    // Seated meanwhile (the attempt began there), or cancelled: either way not ours to begin.
    const state = await this.#resume(stepOf(waiting));
    if (state?.phase !== "waiting") return this.holds(request.jobId);
    if (instance === null) return true;
    if (await this.#begin(state, instance)) return true;
    if (await this.#resume(stepOf(state))) await this.#letGo(state, "delete");
    return false;
  }

  /** The alarm while the job waits for a seat: asks again, or gives up its place when the job ended meanwhile. */
  async #askForSeatAgain(request: SeatRequest): Promise<void> {
    const job = await findJob(this.#db(), request.jobId);
    if (stillWaiting(request, job)) await this.#seat(request);
    else await this.#letGo({ phase: "waiting", request, since: Date.now() }, "delete");
  }

  /** Begins the attempt after `request.previousAttempt` on `instance` (or starts again the one whose start was refused); false when the job is no longer at it. */
  async #begin(waiting: InPhase<"waiting">, instance: string): Promise<boolean> {
    const { request } = waiting;
    const now = Date.now();
    const job = request.refused ? await findJob(this.#db(), request.jobId) : await startAttempt(this.#db(), request.jobId, request.previousAttempt, now);
    // The pool's `seated` and this runner's `#seat` may both begin the same seat: the other finds
    // it begun. Only storage is awaited from here to `starting` saved, so no third call interleaves.
    if (!(await this.#resume(stepOf(waiting)))) return this.holdsSeat(instance);
    if (!job || (request.refused && !stillWaiting(request, job))) return false;
    const attempt = { ...newAttempt(job, instance, newAttemptToken(), request.handBacks ?? 0, now), ...(request.refusedSince ? { refusedSince: request.refusedSince } : {}) };
    log("info", "attempt started", { job: job.id, attempt: attempt.attempt, instance, ...(request.refused ? { again: "its last start was refused by a processor that will not run it" } : {}) });
    await this.#sendStart(attempt, job);
    return true;
  }

  /** Hands the attempt to the processor; idempotent on the attempt id, so a failed start is sent again by the next alarm (a failed call). */
  async #sendStart(attempt: Attempt, job: JobRow): Promise<void> {
    // The watchdog first (saving `starting` arms it): if this invocation dies, the start is sent again.
    await this.#save({ phase: "starting", attempt, since: Date.now() });
    try {
      const answer = await startOnProcessor(this.env, attempt, job, await fanoutOfferFor(this.env, job, this.#tunables()));
      // An event may have moved the attempt on (or ended it) while the start was in flight.
      const state = await this.#resume(attempt.pid);
      if (state?.phase === "starting") await this.#heard(state, answer, "check");
    } catch (error) {
      const state = await this.#resume(attempt.pid);
      if (state?.phase !== "starting") return;
      // A processor that will not run it: the same attempt is seated elsewhere, and the pool seats nothing more on that instance.
      const why = startRefusedBecause(error);
      if (why) return this.#startRefused(state, why);
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
   * A processor that will not run the attempt refused its start (startRefusedBecause): not a
   * failed call, not an attempt more. The seat goes back with `draining`, so the pool seats
   * nothing more on that instance until its container stops; the same attempt waits for another.
   */
  async #startRefused(state: InPhase<"starting">, why: "draining" | "another protocol version"): Promise<void> {
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
    const still = await this.#resume(state.attempt.pid);
    if (!hasAttempt(still)) return;
    if (answer === "no answer") return this.#failedCall(still);
    if (answer === "unknown") return this.#ended(still, { cause: "lost", reason: "the processor lost the job (it restarted or was replaced)" });
    await this.#heard(still, answer, "check");
  }

  /** A state of the attempt, pushed or answered: progress is kept; an end is kept, then recorded as the alarm would. */
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
    // Not over an end heard (or being recorded) while D1 wrote.
    if (write && !runsUnended(await this.#resume(next.pid))) return;
    await this.#save({ phase: "running", attempt: next, since: now });
  }

  /** Records the end the processor reported: outputs collected and the job completed, or what attemptEnded decides. */
  async #recordEnd(state: InPhase<"ending">): Promise<void> {
    const { final } = state;
    if (final.state === "failed") return this.#ended(state, { cause: "reported", error: final.error }, final.timings);
    // Stopped unasked: the processor is going away. Free only when it says it handed the
    // attempt back at its drain's deadline (container/src/jobs.ts `drain`); else charged.
    if (final.state === "cancelled") {
      return this.#ended(state, final.handedBack ? { cause: "handed back" } : { cause: "lost", reason: "the processor stopped it unasked" }, undefined, true);
    }
    if (final.state !== "completed") return;
    if (final.plan) return this.#closing(state, () => this.#fanned.fanOut(state, final.plan!));
    // A part's result is its own, no job type's (docs/fanout.md); a stitch's time joins the fan-out's.
    const checked = state.attempt.part === "video" || state.attempt.part === "audio" ? { result: final.result } : checkResult(state.attempt, final);
    if (state.attempt.part === "stitch") await this.#fanned.stitched(state, final.timings?.processMs ?? null);
    if ("cause" in checked) return this.#ended(state, checked, final.timings);
    if ((await this.#closing(state, () => this.#collect(state, final, checked.result))) === "retry") await this.#failedCall(state);
  }

  async #failedCall(state: WithAttempt): Promise<void> {
    const next = afterFailedCall(state.attempt, this.#tunables().runner);
    if (next === "lost") return this.#ended(state, { cause: "lost", reason: "the processor stopped answering" });
    await this.#save({ ...state, attempt: next, since: Date.now() });
  }

  /** Checks the outputs in R2 (src/runner/outputs.ts) and completes the job; "retry" when one missing could not be copied (a failed call). */
  async #collect(state: InPhase<"ending">, final: Extract<ProcessorJobState, { state: "completed" }>, result: StoredResult): Promise<"retry" | void> {
    const outcome = await collectOutputs(this.env, state.attempt, final, result);
    if (outcome === "retry") return outcome;
    if (await this.#end(state, outcome)) return;
    // Not ended by this call. Cancelled meanwhile: the outputs belong to no one. Completed by
    // another call with these very outputs (a runner restarted while collecting): they stay.
    if ((await findJob(this.#db(), state.attempt.jobId))?.status !== "completed") await discardOutputs(this.env, state.attempt.jobId, final.outputs);
  }

  /** The attempt ended otherwise than completed: attemptEnded decides the next attempt or the job's failure. `draining`: its processor is going away. */
  async #ended(state: WithAttempt, end: AttemptEnd, timings?: JobTimings, draining = false): Promise<void> {
    await this.#closing(state, async () => {
      const { attempt } = state;
      const handBacks = attempt.handBacks ?? 0;
      const decision = attemptEnded(end, { attempt: attempt.attempt, handBacks }, this.#tunables().job);
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

  /** The one way out of a job: finishJob, letting go as its first follow-up (or at once when someone else ended it); true when this call ended it. */
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

  /** Lets go of the processor's attempt (cancelled when asked, then deleted) and the seat, then forgets the job; meanwhile `leaving`. */
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

  /** What the fanned-out job's part of the runner may do (src/runner/fanned.ts). */
  #fanned = new FannedJob({
    env: () => this.env,
    tunables: () => this.#tunables(),
    save: (state) => this.#save(state),
    resume: (step) => this.#resume(step),
    seat: (request) => this.#seat(request),
    letGo: (state, how) => this.#letGo(state, how),
    release: (attempt, how) => this.#release(attempt, how),
  });
}

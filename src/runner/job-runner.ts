// JobRunner: one Durable Object per job. It starts an attempt on a processor (sending the
// start again until the processor has it), then follows it through the events the
// processor pushes (src/runner/events.ts): progress is kept here and reaches D1 only at a
// few marks; the final state is handled as it arrives (the processor uploaded the outputs
// before it, src/runner/output-upload.ts). The runner's alarm is a watchdog:
// when no event came for TUNABLES.runner.silentHeartbeats heartbeats it asks the processor
// once (GET /jobs/:id). A processor that vanishes (unreachable, or answers 404 for the
// attempt) costs one attempt; after TUNABLES.job.maxAttempts the job fails
// `processing_interrupted`. The runner holds the job's live lease: the sweeper and the
// limiter ask it (`holds`, `poke`) instead of reading a lease in D1. It ends a job only
// through finishJob. Always: an attempt's processor job is cancelled or deleted when the
// runner lets go of it.
import { DurableObject } from "cloudflare:workers";
import type { ProcessorJobState } from "../contract/processor-protocol.ts";
import { database, type Db } from "../db/client.ts";
import { findJob, recordProgress, startAttempt } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { processorPool } from "../limits/processor-pool.ts";
import { configureLogging, log } from "../lib/log.ts";
import { describe, reportConfigProblems } from "../ops/config.ts";
import { afterFailedCall, interrupted, mayRetry, newAttempt, retryAlarmAt, silenceAlarmAt, withProgress, type Attempt } from "./attempt.ts";
import { finishJob, type Outcome } from "./finish.ts";
import { collectOutputs, discardOutputs } from "./outputs.ts";
import { askProcessor, releaseOnProcessor, startOnProcessor } from "./processor-calls.ts";
import { beginWhenSeated, clearWaiting, seatRequest, waitingForSeat, whileWaiting, type SeatRequest } from "./seat.ts";

export type { Attempt } from "./attempt.ts";

/** A queued job as its limiter knows it: enough to ask for a seat without reading its row. */
export type QueuedJob = Pick<SeatRequest, "orgId" | "priority" | "createdAt">;

export class JobRunner extends DurableObject<Env> {
  /** The attempt whose outcome is being recorded now: later events and checks of it wait or do nothing. */
  #finishing: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureLogging(env);
  }

  #db(): Db {
    return database(this.env.DB);
  }

  async #attempt(): Promise<Attempt | undefined> {
    return this.ctx.storage.get<Attempt>("attempt");
  }

  /**
   * Starts the job if it is still queued; called by the limiter once the job has a slot.
   * Safe to call any number of times. True while the job runs here (it holds its slot).
   * With `queued` (the job as the limiter has it) nothing is read before the job asks for
   * a seat: a job that is no longer queued is refused by the guarded update that begins
   * its attempt (the job was created `queued` at attempt 0 and never goes back to it).
   */
  async start(jobId: string, queued?: QueuedJob): Promise<boolean> {
    if ((await this.#attempt()) || (await waitingForSeat(this.ctx.storage))) return true;
    // Thrown, not returned: the limiter keeps the job waiting and retries it later, so a
    // missing secret costs no attempt and takes no seat (docs/deploy.md: configuration).
    const problems = reportConfigProblems(this.env, "job start");
    if (problems.length > 0) throw new Error(`configuration is unusable: ${describe(problems)}`);
    const request = queued ? { ...queued, jobId, previousAttempt: 0 } : await this.#queuedRequest(jobId);
    return request ? this.#seat(request) : false;
  }

  /** The pool gives this job a seat on `instance`: the attempt begins. False when the job will not run. */
  async seated(jobId: string, instance: string): Promise<boolean> {
    const current = await this.#attempt();
    if (current) return current.instance === instance;
    const request = (await waitingForSeat(this.ctx.storage)) ?? (await this.#queuedRequest(jobId));
    if (!request) return false;
    await clearWaiting(this.ctx.storage);
    return this.#beginAttempt(jobId, request.previousAttempt, instance);
  }

  /** Asked by the pool before it reclaims a seat: true while an attempt here runs on it. */
  async holdsSeat(instance: string): Promise<boolean> {
    return (await this.#attempt())?.instance === instance;
  }

  /**
   * Asked once per output the processor uploads (src/runner/output-upload.ts), before it is
   * stored: true while attempt `pid` is the one this runner holds.
   */
  async holdsAttempt(pid: string): Promise<boolean> {
    return (await this.#attempt())?.pid === pid;
  }

  /**
   * Asked by the limiter before it reclaims the job's slot: true while this runner has the
   * job (an attempt runs, or it waits for a seat). Reads only this object's storage.
   */
  async holds(jobId: string): Promise<boolean> {
    return (await this.#attempt())?.jobId === jobId || (await waitingForSeat(this.ctx.storage))?.jobId === jobId;
  }

  async #queuedRequest(jobId: string): Promise<SeatRequest | undefined> {
    const job = await findJob(this.#db(), jobId);
    return job?.status === "queued" ? seatRequest(job, job.attempt) : undefined;
  }

  /** Takes a seat and begins, or waits for the pool to call `seated` (true: the job is this runner's). */
  #seat(request: SeatRequest): Promise<boolean> {
    return beginWhenSeated(this.env, this.ctx.storage, request, (instance) => this.#beginAttempt(request.jobId, request.previousAttempt, instance));
  }

  /** Stops the job's processor work; the row was already marked cancelled by the caller. */
  async cancel(): Promise<void> {
    const current = await this.#attempt();
    const waiting = await waitingForSeat(this.ctx.storage);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    if (current) await this.#release(current, "cancel");
    else if (waiting) await processorPool(this.env).release(waiting.jobId);
  }

  /**
   * An event the processor pushed (src/runner/events.ts). False when this runner does not
   * hold that attempt. Progress is taken at once. A final state is kept, then handled
   * before the push is answered (the processor does not wait for that answer); the alarm
   * set first is the backstop that handles it should this invocation die, and a failure
   * while handling it is retried like any other.
   */
  async event(state: ProcessorJobState): Promise<boolean> {
    const current = await this.#attempt();
    if (!current || current.pid !== state.id) return false;
    if (this.#finishing === current.pid) return true;
    // An event can overtake the answer to the start: the processor has the attempt.
    const next = { ...current, started: true, failures: 0 };
    if (state.state === "running") {
      await this.#running(next, state.progress);
      return true;
    }
    await this.ctx.storage.put({ attempt: next, final: state });
    await this.ctx.storage.setAlarm(retryAlarmAt(Date.now()));
    await this.alarm();
    return true;
  }

  /** The poke of the sweeper: true if this runner still has the job at `attempt`, and then it checks on it now. */
  async poke(attempt: number): Promise<boolean> {
    const current = await this.#attempt();
    const waiting = await waitingForSeat(this.ctx.storage);
    if (current?.attempt !== attempt && waiting?.previousAttempt !== attempt) return false;
    // Its alarm may have been lost: do what it would have done.
    await this.alarm();
    return true;
  }

  /** The watchdog: handle a pushed final state, resend an unacknowledged start, or ask the processor after a silence. */
  override async alarm(): Promise<void> {
    if (await whileWaiting(this.env, this.ctx.storage, (request) => this.#seat(request))) return;
    const current = await this.#attempt();
    if (!current || this.#finishing === current.pid) return;
    try {
      const final = await this.ctx.storage.get<ProcessorJobState>("final");
      if (final?.id === current.pid) return await this.#handle(current, final);
      if (current.started) return await this.#check(current);
      const job = await findJob(this.#db(), current.jobId);
      if (!job || job.status !== "processing" || job.attempt !== current.attempt) return this.#letGo(current);
      await this.#sendStart(current, job);
    } catch (error) {
      log("error", "runner check crashed", { job: current.jobId, attempt: current.attempt, error: String(error) });
      await this.#failedCall(current);
    }
  }

  async #beginAttempt(jobId: string, previousAttempt: number, instance: string): Promise<boolean> {
    const job = await startAttempt(this.#db(), jobId, previousAttempt, Date.now());
    if (!job) return false;
    const current = newAttempt(job, instance);
    await this.ctx.storage.put("attempt", current);
    log("info", "attempt started", { job: jobId, attempt: current.attempt });
    await this.#sendStart(current, job);
    return true;
  }

  /**
   * Hands the attempt to the processor, with the callback its events go to. Starting is
   * idempotent on the attempt id, so a start that failed (refused, unreachable, connection
   * lost) is sent again by the next alarm instead of asking for an attempt the processor
   * never had; after TUNABLES.runner.maxCallFailures in a row the attempt counts as lost.
   */
  async #sendStart(current: Attempt, job: Pick<JobRow, "type" | "params">): Promise<void> {
    // The watchdog first: if this invocation dies, the start is sent again.
    await this.ctx.storage.setAlarm(retryAlarmAt(Date.now()));
    try {
      const state = await startOnProcessor(this.env, current, job);
      // An event may have moved the attempt on (or ended it) while the start was in flight.
      const now = await this.#attempt();
      if (now?.pid !== current.pid || now.started || this.#finishing === current.pid) return;
      await this.#handle({ ...now, started: true, failures: 0 }, state);
    } catch (error) {
      log("warn", "processor refused or unreachable at start", { job: current.jobId, attempt: current.attempt, error: String(error) });
      const now = await this.#attempt();
      if (now?.pid === current.pid && !now.started) await this.#failedCall(now);
    }
  }

  /** After a silence: asks the processor for the attempt's state once. */
  async #check(current: Attempt): Promise<void> {
    const state = await askProcessor(this.env, current);
    if (state === "no answer") return this.#failedCall(current);
    if (state === "unknown") return this.#lost(current, "the processor lost the job (it restarted or was replaced)");
    const now = await this.#attempt();
    if (now?.pid !== current.pid || this.#finishing === current.pid) return;
    await this.#handle({ ...now, failures: 0 }, state);
  }

  /** A state of the attempt, pushed or asked for. */
  async #handle(current: Attempt, state: ProcessorJobState): Promise<void> {
    switch (state.state) {
      case "running":
        return this.#running(current, state.progress);
      case "completed":
        return this.#whileFinishing(current, () => this.#collect(current, state));
      case "failed":
        return this.#whileFinishing(current, async () => {
          await this.#finish(current, { status: "failed", attempt: current.attempt, error: state.error, timings: state.timings });
        });
      case "cancelled":
        // Cancelled on the processor without our asking (it is shutting down): try again.
        return this.#lost(current, "the processor stopped the job while shutting down");
    }
  }

  /** Keeps the progress, writes it to D1 at a mark (not more often than progressWriteMs), and re-arms the watchdog. */
  async #running(current: Attempt, progress: number): Promise<void> {
    const now = Date.now();
    const { next, write } = withProgress(current, progress, now);
    // False when the job left this attempt (cancelled): whoever did it stops this runner too.
    if (write && !(await recordProgress(this.#db(), current.jobId, current.attempt, next.progress))) return;
    await this.ctx.storage.put("attempt", next);
    await this.ctx.storage.setAlarm(silenceAlarmAt(now));
  }

  /** Runs the attempt's end once: events and checks that arrive meanwhile do nothing. */
  async #whileFinishing(current: Attempt, work: () => Promise<void>): Promise<void> {
    this.#finishing = current.pid;
    // If this invocation dies, the watchdog asks again and the end is recorded then.
    await this.ctx.storage.put("attempt", current);
    await this.ctx.storage.setAlarm(silenceAlarmAt(Date.now()));
    try {
      await work();
    } finally {
      if (this.#finishing === current.pid) this.#finishing = undefined;
    }
  }

  async #failedCall(current: Attempt): Promise<void> {
    const { next, lost, retryAt } = afterFailedCall(current, Date.now());
    if (lost) return this.#lost(next, "the processor stopped answering");
    await this.ctx.storage.put("attempt", next);
    await this.ctx.storage.setAlarm(retryAt);
  }

  /** Checks the outputs in R2 (src/runner/outputs.ts) and records the outcome; a failed copy of one missing is a failed call. */
  async #collect(current: Attempt, state: Extract<ProcessorJobState, { state: "completed" }>): Promise<void> {
    const outcome = await collectOutputs(this.env, current, state);
    if (outcome === "retry") return this.#failedCall(current);
    if ((await this.#finish(current, outcome)) || outcome.status !== "completed") return;
    // Not ended by this call. Cancelled while we checked or copied: the outputs belong to no
    // one. But a poke's alarm and the runner's own can both collect the same end, and then
    // the other one completed the job with these very outputs: they stay.
    if ((await findJob(this.#db(), current.jobId))?.status !== "completed") await discardOutputs(this.env, current.jobId, state.outputs);
  }

  /** The processor lost this attempt: start the next one, or fail the job after the last. */
  async #lost(current: Attempt, reason: string): Promise<void> {
    log("warn", "processor lost the attempt", { job: current.jobId, attempt: current.attempt, reason });
    if (mayRetry(current)) {
      await this.ctx.storage.deleteAlarm();
      await this.#release(current, "delete");
      const job = await findJob(this.#db(), current.jobId);
      if (!job || job.status !== "processing" || job.attempt !== current.attempt) return this.#forget();
      // The seat request replaces the attempt with no other I/O between (only storage), so
      // the sweeper or the limiter asking meanwhile finds that the runner holds the job.
      // The next attempt takes a seat like any waiting job (maybe on another instance).
      await this.ctx.storage.delete(["attempt", "final"]);
      await this.#seat(seatRequest(job, current.attempt));
      return;
    }
    await this.#finish(current, { status: "failed", attempt: current.attempt, error: interrupted(reason) });
  }

  /**
   * Ends the job with this attempt's outcome; the runner lets go of the attempt either way
   * (first of the follow-ups when it ended the job, at once when someone else had).
   */
  async #finish(current: Attempt, outcome: Outcome): Promise<boolean> {
    const letGo = () => this.#letGo(current);
    if (await finishJob(this.env, current.jobId, outcome, { stop: letGo })) return true;
    await letGo();
    return false;
  }

  /**
   * Stops the watchdog and releases the processor's attempt, then forgets it. In that
   * order: a `cancel` that arrives meanwhile still finds the attempt and returns only once
   * it is released; events that arrive meanwhile are ignored.
   */
  async #letGo(current: Attempt): Promise<void> {
    this.#finishing = current.pid;
    await this.ctx.storage.deleteAlarm();
    await this.#release(current, "delete");
    await this.#forget();
  }

  async #forget(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  /** Releases the attempt on its processor (best effort), then its seat. */
  async #release(current: Attempt, how: "cancel" | "delete"): Promise<void> {
    await releaseOnProcessor(this.env, current, how);
    await processorPool(this.env).release(current.jobId);
  }
}

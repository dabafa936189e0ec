// JobRunner: one Durable Object per job. It starts an attempt on a processor (sending the
// start again until the processor has it), then polls it from alarms (no invocation waits for the whole job), copies outputs to R2 and
// finalizes the row. A processor that vanishes (unreachable, or answers 404 for the
// attempt) costs one attempt; after TUNABLES.job.maxAttempts the job fails
// `processing_interrupted`. It ends a job only through finishJob. Always: an attempt's
// processor job is cancelled or deleted when the runner lets go of it.
import { DurableObject } from "cloudflare:workers";
import type { ProcessorJobRequest, ProcessorJobState, ProcessorOutput } from "../contract/processor-protocol.ts";
import type { JobParams, JobType } from "../contract/registry.ts";
import { parseStoredResult } from "../contract/stored-result.ts";
import { uploadRefId } from "../contract/uploads.ts";
import { database, type Db } from "../db/client.ts";
import { findJob, renewLease, startAttempt } from "../db/jobs.ts";
import { outputKey } from "../files/signing.ts";
import { uploadInputLink } from "../files/uploads.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { processorPool } from "../limits/processor-pool.ts";
import { configureLogging, log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { describe, reportConfigProblems } from "../ops/config.ts";
import { finishJob, type Outcome } from "./finish.ts";
import { beginWhenSeated, clearWaiting, seatRequest, waitingForSeat, whileWaiting, type SeatRequest } from "./seat.ts";
import { processorFetch } from "./transport.ts";

const { maxAttempts } = TUNABLES.job;
const { firstPollDelayMs, firstPolls, fastPollDelayMs, fastPolls, slowPollDelayMs, failedPollDelayMs, maxPollFailures } = TUNABLES.runner;

/** What the runner keeps in its storage while an attempt runs. */
export interface Attempt {
  jobId: string;
  orgId: string;
  mode: string;
  /** When the concurrency slot was last renewed. */
  renewedAt: number;
  attempt: number;
  /** The processor's id for this attempt: `<jobId>.<attempt>`. */
  pid: string;
  /** The pool instance whose seat this attempt holds (src/limits/processor-pool.ts). */
  instance: string;
  /** Whether the processor acknowledged the start; until then each alarm sends it again. */
  started: boolean;
  polls: number;
  failures: number;
}

export class JobRunner extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureLogging(env);
  }

  #db(): Db {
    return database(this.env.DB);
  }

  /**
   * Starts the job if it is still queued; called by the limiter once the job has a slot.
   * Safe to call any number of times. True while the job runs here (it holds its slot).
   */
  async start(jobId: string): Promise<boolean> {
    if ((await this.ctx.storage.get<Attempt>("attempt")) || (await waitingForSeat(this.ctx.storage))) return true;
    // Thrown, not returned: the limiter keeps the job waiting and retries it later, so a
    // missing secret costs no attempt and takes no seat (docs/deploy.md: configuration).
    const problems = reportConfigProblems(this.env, "job start");
    if (problems.length > 0) throw new Error(`configuration is unusable: ${describe(problems)}`);
    const request = await this.#queuedRequest(jobId);
    return request ? this.#seat(request) : false;
  }

  /** The pool gives this job a seat on `instance`: the attempt begins. False when the job will not run. */
  async seated(jobId: string, instance: string): Promise<boolean> {
    const current = await this.ctx.storage.get<Attempt>("attempt");
    if (current) return current.instance === instance;
    const request = (await waitingForSeat(this.ctx.storage)) ?? (await this.#queuedRequest(jobId));
    if (!request) return false;
    await clearWaiting(this.ctx.storage);
    return this.#beginAttempt(jobId, request.previousAttempt, instance);
  }

  /** Asked by the pool before it reclaims a seat: true while an attempt here runs on it. */
  async holdsSeat(instance: string): Promise<boolean> {
    return (await this.ctx.storage.get<Attempt>("attempt"))?.instance === instance;
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
    const current = await this.ctx.storage.get<Attempt>("attempt");
    const waiting = await waitingForSeat(this.ctx.storage);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    if (current) await this.#release(current, "cancel");
    else if (waiting) await processorPool(this.env).release(waiting.jobId);
  }

  /** Runs the poll now (used by the sweeper for a job whose lease expired). */
  async poke(): Promise<void> {
    if (await this.ctx.storage.get<Attempt>("attempt")) await this.alarm();
  }

  override async alarm(): Promise<void> {
    if (await whileWaiting(this.env, this.ctx.storage, (request) => this.#seat(request))) return;
    const current = await this.ctx.storage.get<Attempt>("attempt");
    if (!current) return;
    try {
      if (current.started) return await this.#poll(current);
      const job = await findJob(this.#db(), current.jobId);
      if (!job || job.status !== "processing" || job.attempt !== current.attempt) return this.#letGo(current, "delete");
      await this.#sendStart(current, job);
    } catch (error) {
      log("error", "runner poll crashed", { job: current.jobId, attempt: current.attempt, error: String(error) });
      await this.#schedule({ ...current, failures: current.failures + 1 });
    }
  }

  async #beginAttempt(jobId: string, previousAttempt: number, instance: string): Promise<boolean> {
    const db = this.#db();
    const now = Date.now();
    if (!(await startAttempt(db, jobId, previousAttempt, now))) return false;
    const job = (await findJob(db, jobId))!;
    const current: Attempt = {
      jobId,
      orgId: job.orgId,
      mode: job.mode,
      renewedAt: now,
      attempt: job.attempt,
      pid: `${jobId}.${job.attempt}`,
      instance,
      started: false,
      polls: 0,
      failures: 0,
    };
    await this.ctx.storage.put("attempt", current);
    log("info", "attempt started", { job: jobId, attempt: current.attempt });
    await this.#sendStart(current, job);
    return true;
  }

  /**
   * Hands the attempt to the processor. Starting is idempotent on the attempt id, so a start
   * that failed (refused, unreachable, connection lost) is sent again by the next alarm
   * instead of polling for an attempt the processor never had; after
   * TUNABLES.runner.maxPollFailures in a row the attempt counts as lost.
   */
  async #sendStart(current: Attempt, job: { type: string; params: unknown }): Promise<void> {
    try {
      const upload = uploadRefId((job.params as { url: string }).url);
      const request: ProcessorJobRequest = {
        id: current.pid,
        type: job.type as JobType,
        params: job.params as JobParams,
        ...(upload ? { inputUrl: await uploadInputLink(this.env, upload, Date.now()) } : {}),
      };
      const response = await processorFetch(this.env, current.instance)("/jobs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      });
      if (!response.ok) throw new Error(`processor answered ${response.status} to start: ${await response.text()}`);
      await this.#schedule({ ...current, started: true, failures: 0 });
    } catch (error) {
      log("warn", "processor refused or unreachable at start", { job: current.jobId, attempt: current.attempt, error: String(error) });
      await this.#schedule({ ...current, failures: current.failures + 1 });
    }
  }

  async #schedule(current: Attempt): Promise<void> {
    if (current.failures >= maxPollFailures) return this.#lost(current, "the processor stopped answering");
    await this.ctx.storage.put("attempt", current);
    const delay =
      current.failures > 0
        ? failedPollDelayMs
        : current.polls < firstPolls
          ? firstPollDelayMs
          : current.polls < fastPolls
            ? fastPollDelayMs
            : slowPollDelayMs;
    await this.ctx.storage.setAlarm(Date.now() + delay);
  }

  async #poll(current: Attempt): Promise<void> {
    const call = processorFetch(this.env, current.instance);
    let response: Response;
    try {
      response = await call(`/jobs/${encodeURIComponent(current.pid)}`);
    } catch (error) {
      return this.#schedule({ ...current, failures: current.failures + 1 });
    }
    if (response.status === 404) return this.#lost(current, "the processor lost the job (it restarted or was replaced)");
    if (!response.ok) return this.#schedule({ ...current, failures: current.failures + 1 });
    const state = (await response.json()) as ProcessorJobState;
    const next = { ...current, polls: current.polls + 1, failures: 0 };

    switch (state.state) {
      case "running": {
        const now = Date.now();
        if (!(await renewLease(this.#db(), current.jobId, current.attempt, state.progress, now))) return this.#letGo(current, "cancel");
        if (now - current.renewedAt >= TUNABLES.limiter.slotRenewMs) {
          const held = await limiterFor(this.env, current.orgId, current.mode).renew(current.jobId);
          if (!held) log("warn", "concurrency slot lease was lost while the job ran", { job: current.jobId });
          next.renewedAt = now;
        }
        return this.#schedule(next);
      }
      case "completed":
        return this.#collect(current, state.result, state.outputs);
      case "failed":
        await this.#finish(current, { status: "failed", attempt: current.attempt, error: state.error });
        return;
      case "cancelled":
        // Cancelled on the processor without our asking (it is shutting down): try again.
        return this.#lost(current, "the processor stopped the job while shutting down");
    }
  }

  /** Checks the result against its type's schema, copies every output to R2, then completes the row. */
  async #collect(current: Attempt, result: unknown, outputs: ProcessorOutput[]): Promise<void> {
    const job = await findJob(this.#db(), current.jobId);
    if (!job) return this.#letGo(current, "delete");
    const checked = parseStoredResult(job.type as JobType, result);
    if (!checked.ok) {
      log("error", "processor result does not fit its type", { job: current.jobId, attempt: current.attempt, type: job.type, issues: checked.issues });
      const message = `processing produced a ${job.type} result that does not fit its schema; this is a fault on our side, it has been logged`;
      await this.#finish(current, { status: "failed", attempt: current.attempt, error: { code: "invalid_result", message } });
      return;
    }
    const call = processorFetch(this.env, current.instance);
    try {
      for (const output of outputs) {
        const response = await call(`/jobs/${encodeURIComponent(current.pid)}/outputs/${encodeURIComponent(output.name)}`);
        if (!response.ok || !response.body) throw new Error(`output ${output.name}: HTTP ${response.status}`);
        // R2 needs a known length for a streamed body; the processor states it.
        const sized = new FixedLengthStream(output.size);
        const [, put] = await Promise.all([
          response.body.pipeTo(sized.writable),
          this.env.OUTPUTS.put(outputKey(current.jobId, output.name), sized.readable, {
            httpMetadata: { contentType: output.contentType },
            customMetadata: { jobId: current.jobId },
          }),
        ]);
        if (!put) throw new Error(`output ${output.name}: R2 refused the object`);
      }
    } catch (error) {
      log("warn", "collecting outputs failed", { job: current.jobId, attempt: current.attempt, error: String(error) });
      return this.#schedule({ ...current, failures: current.failures + 1 });
    }
    if (!(await this.#finish(current, { status: "completed", attempt: current.attempt, result: checked.value }))) {
      // Cancelled while we copied: the outputs belong to no one.
      await this.env.OUTPUTS.delete(outputs.map((o) => outputKey(current.jobId, o.name)));
    }
  }

  /** The processor lost this attempt: start the next one, or fail the job after the last. */
  async #lost(current: Attempt, reason: string): Promise<void> {
    log("warn", "processor lost the attempt", { job: current.jobId, attempt: current.attempt, reason });
    if (current.attempt < maxAttempts) {
      await this.#release(current, "delete");
      await this.ctx.storage.deleteAll();
      // The next attempt takes a seat like any waiting job (maybe on another instance).
      const job = await findJob(this.#db(), current.jobId);
      if (job) await this.#seat(seatRequest(job, current.attempt));
      return;
    }
    await this.#finish(current, {
      status: "failed",
      attempt: current.attempt,
      error: {
        code: "processing_interrupted",
        message: `processing was interrupted ${maxAttempts} times (${reason}); the job was not completed. Retry it by creating it again.`,
      },
    });
  }

  /**
   * Ends the job with this attempt's outcome; the runner lets go of the attempt either way
   * (first of the follow-ups when it ended the job, at once when someone else had).
   */
  async #finish(current: Attempt, outcome: Outcome): Promise<boolean> {
    const letGo = () => this.#letGo(current, "delete");
    if (await finishJob(this.env, current.jobId, outcome, { stop: letGo })) return true;
    await letGo();
    return false;
  }

  /**
   * Stops polling and releases the processor's attempt, then forgets it. In that order: a
   * `cancel` that arrives meanwhile still finds the attempt and returns only once it is
   * released.
   */
  async #letGo(current: Attempt, how: "cancel" | "delete"): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.#release(current, how);
    await this.ctx.storage.deleteAll();
  }

  /** Best effort: a processor that is gone has nothing left to release. */
  async #release(current: Attempt, how: "cancel" | "delete"): Promise<void> {
    const call = processorFetch(this.env, current.instance);
    const path = `/jobs/${encodeURIComponent(current.pid)}`;
    try {
      if (how === "cancel") await call(`${path}/cancel`, { method: "POST" });
      await call(path, { method: "DELETE" });
    } catch {
      // Unreachable processor: its own TTL sweep removes the files.
    }
    await processorPool(this.env).release(current.jobId);
  }
}

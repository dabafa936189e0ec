// A fanned-out job in its runner (docs/fanout.md): the planning attempt's end makes the parts
// and lets go of its seat; each part's end (and the alarm) looks at the parts, starting the
// next, failing the job with a part's error, or seating the stitch. The JobRunner gives it its
// own state, storage and seat operations (RunnerOps); what the parts' rows mean is decided in
// fanout-plan.ts.
import { database, type Db } from "../db/client.ts";
import { findJob, recordProgress } from "../db/jobs.ts";
import { beginStitch, insertParts, recordStitch } from "../db/parts.ts";
import type { JobRow } from "../db/schema.ts";
import { log } from "../lib/log.ts";
import type { Tunables } from "../lib/tunables.ts";
import type { Attempt } from "./attempt.ts";
import { fanoutOfferFor, partRows } from "./fanout.ts";
import { stitchPart, type FanoutPlan } from "../contract/fanout.ts";
import { decideParts, fanoutTimings } from "./fanout-plan.ts";
import { finishJob } from "./finish.ts";
import { seatRequest, type SeatRequest } from "./seat.ts";
import { stepOf, type InPhase, type RunnerState } from "./state.ts";

/** The JobRunner's own operations, as the fanned-out job uses them (job-runner.ts). */
export interface RunnerOps {
  env(): Env;
  tunables(): Tunables;
  save(state: RunnerState | undefined): Promise<void>;
  resume(step: string | undefined): Promise<RunnerState | undefined>;
  seat(request: SeatRequest): Promise<boolean>;
  letGo(state: RunnerState, how: "cancel" | "delete"): Promise<void>;
  release(attempt: Attempt, how: "cancel" | "delete"): Promise<void>;
}

export class FannedJob {
  readonly #ops: RunnerOps;

  constructor(ops: RunnerOps) {
    this.#ops = ops;
  }

  get #db(): Db {
    return database(this.#ops.env().DB);
  }

  /**
   * The attempt planned a fan-out (docs/fanout.md): its parts' rows are made, its processor
   * attempt and seat let go, and the parts begin; the job stays `processing` at this attempt.
   */
  async fanOut(state: InPhase<"ending">, plan: FanoutPlan): Promise<void> {
    const { attempt } = state;
    const job = await findJob(this.#db, attempt.jobId);
    if (!job || job.status !== "processing" || job.attempt !== attempt.attempt) return this.#ops.letGo(state, "delete");
    // The seats its plan allows now (a plan changed since the offer counts from here).
    const seats = (await fanoutOfferFor(this.#ops.env(), job, this.#ops.tunables()))?.seats ?? 1;
    await insertParts(this.#db, job, plan, 1, Date.now());
    await this.#ops.release(attempt, "delete");
    const fanned: InPhase<"fanned"> = { phase: "fanned", jobId: job.id, planAttempt: attempt.attempt, handBacks: attempt.handBacks ?? 0, plan, seats, started: [], since: Date.now() };
    log("info", "job fanned out", { job: job.id, attempt: attempt.attempt, chunks: plan.chunks.length, audio: plan.audio, frames: plan.frames });
    await this.#ops.save(fanned);
    await this.advance(fanned);
  }

  /** One look at the parts at a time: two parts ending together must not both start the next. */
  #looking: Promise<void> = Promise.resolve();

  /** Looks at the parts' rows (decideParts): starts the next ones, fails the job with a part's error, or seats the stitch. */
  advance(state: InPhase<"fanned">): Promise<void> {
    const look = this.#looking.then(async () => {
      const current = await this.#ops.resume(stepOf(state));
      if (current?.phase !== "fanned") return;
      const rows = await partRows(this.#ops.env(), current.jobId);
      const decision = decideParts(rows, new Set(current.started), current.seats);
      if (!(await this.#ops.resume(stepOf(current)))) return;
      if ("fail" in decision) {
        const letGo = () => this.#ops.letGo(current, "delete");
        if (!(await finishJob(this.#ops.env(), current.jobId, { status: "failed", attempt: current.planAttempt, error: decision.fail }, { stop: letGo }))) await letGo();
        return;
      }
      if ("stitch" in decision) return this.#seatStitch(current, rows);
      const next = { ...current, started: [...current.started, ...decision.start], since: Date.now() };
      await this.#ops.save(next);
      await recordProgress(this.#db, current.jobId, current.planAttempt, Math.round(10 + (80 * decision.done) / Math.max(1, rows.length)));
      // A part started before and still queued is started again: a start that failed (a
      // configuration problem, a lost call) left it with no runner, and start is idempotent.
      const again = rows.filter((row) => row.status === "queued" && current.started.includes(row.id)).map((row) => row.id);
      for (const id of [...decision.start, ...again]) await this.#ops.env().JOB_RUNNER.getByName(id).start(id);
    });
    this.#looking = look.catch(() => undefined);
    return look;
  }

  /** Every part completed: the job's row takes the stitch, and its next attempt (not charged: the planning attempt handed its work to the parts) waits for a seat. */
  async #seatStitch(state: InPhase<"fanned">, rows: JobRow[]): Promise<void> {
    if (!(await beginStitch(this.#db, state.jobId, state.planAttempt, stitchPart(state.plan), fanoutTimings(rows)))) return this.#ops.letGo(state, "delete");
    const job = await findJob(this.#db, state.jobId);
    if (!job || !(await this.#ops.resume(stepOf(state)))) return;
    log("info", "parts done; stitching", { job: job.id, ...fanoutTimings(rows) });
    await this.#ops.seat(seatRequest(job, state.planAttempt, state.handBacks + 1));
  }

  /** The stitch ran: its time joins the job's fan-out. */
  async stitched(state: InPhase<"ending">, processMs: number | null): Promise<void> {
    const job = await findJob(this.#db, state.attempt.jobId);
    if (job?.fanout) await recordStitch(this.#db, job.id, state.attempt.attempt, { ...job.fanout, stitchMs: processMs === null ? null : Math.round(processMs) });
  }
}

// A workflow's steps move on where jobs end (docs/workflows.md): finishJob calls
// advanceWorkflow once per step job, by the caller whose guarded update ended it. A completed
// step puts the steps that use it in line with its output as their input; a failed or
// cancelled step decides the workflow's outcome and cancels every step not yet ended; the
// last step to end ends the workflow and schedules its one webhook, or, when it completed with
// a `store`, starts its steps' copies, whose end schedules it (destinations/store.ts).
import { dependentsOf, outputRef, stepJobParams, stepOutputName, type WorkflowSteps } from "../contract/workflow.ts";
import { database } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import { decideOutcome, endWorkflow, findWorkflow, openWorkflows, releaseStep, stepJobs } from "../db/workflows.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { scheduleWorkflowDelivery } from "../webhooks/schedule.ts";
import { startStore } from "../destinations/store.ts";
import { finishJob } from "./finish.ts";
import { enqueueJob } from "./queue.ts";

/** Puts a released step job in line, as a created job is (routes/jobs.ts): the queue message, and the limiter at once. */
export async function putStepInLine(env: Env, job: Pick<JobRow, "id" | "orgId" | "mode" | "priority" | "createdAt">): Promise<void> {
  await enqueueJob(env, { jobId: job.id, orgId: job.orgId, mode: job.mode, priority: job.priority, createdAt: job.createdAt });
  await limiterFor(env, job.orgId, job.mode)
    .enqueue({ jobId: job.id, priority: job.priority, createdAt: job.createdAt })
    .catch((error: unknown) => log("warn", "direct dispatch failed; the queue will carry the step", { job: job.id, error: String(error) }));
}

/**
 * Moves the workflow of `job` (a step that just ended: its final row) on. Idempotent: a step
 * is released by one guarded update, the outcome decided by one, the end by one.
 */
export async function advanceWorkflow(env: Env, job: JobRow, now = Date.now(), options: { repair?: boolean } = {}): Promise<void> {
  if (!job.workflowId || !job.workflowStep) return;
  const db = database(env.DB);
  const workflow = await findWorkflow(db, job.workflowId);
  if (!workflow) return;
  const steps = workflow.steps as WorkflowSteps;
  const rows = await stepJobs(db, workflow.id);
  const rowOf = (name: string) => rows.find((row) => row.workflowStep === name);

  if (job.status === "completed") {
    for (const [name, step] of Object.entries(steps)) {
      if (step.use !== job.workflowStep) continue;
      const dependent = rowOf(name);
      if (!dependent) continue;
      const output = step.output ?? "main";
      const made = stepOutputName(job.type as Parameters<typeof stepOutputName>[0], output, job.result);
      if (made === undefined) {
        await finishJob(env, dependent.id, {
          status: "failed",
          attempt: null,
          error: { code: "invalid_input", message: `step "${job.workflowStep}" made no "${output}" output for this step to read` },
        });
        continue;
      }
      const released = await releaseStep(db, dependent.id, stepJobParams(step, outputRef(job.id, made)), now);
      if (released) await putStepInLine(env, released);
      // The repair: released before, but its putting in line may have crashed; the limiter
      // and the runner ignore a job they know, so putting it in line again starts it once.
      else if (options.repair && dependent.status === "queued" && dependent.releasedAt !== null) await putStepInLine(env, dependent);
    }
  } else {
    // The first step to fail (or to be cancelled by itself) fails the workflow; a cancel of the
    // workflow decided `cancelled` before cancelling its steps, so this changes nothing then.
    const error =
      job.status === "failed"
        ? { code: job.errorCode ?? "processing_failed", message: job.errorMessage ?? "" }
        : { code: "cancelled", message: `step "${job.workflowStep}" was cancelled` };
    if (await decideOutcome(db, workflow.id, { status: "failed", step: job.workflowStep, ...error })) {
      log("info", "workflow failed", { workflow: workflow.id, step: job.workflowStep, error: error.code, dependents: dependentsOf(steps, job.workflowStep) });
    }
    await cancelUnended(env, rows);
  }

  await endAndReport(env, workflow.id, rows[0]!.id, now);
}

/**
 * Ends the workflow if every step has ended, and then either starts the copies of its `store`
 * (it completed with one: its webhook waits for them, destinations/store.ts) or schedules its
 * webhook. Whether this call ended it.
 */
async function endAndReport(env: Env, workflowId: string, firstJobId: string, now: number): Promise<boolean> {
  const ended = await endWorkflow(database(env.DB), workflowId, now);
  if (!ended) return false;
  const { workflow, stores } = ended;
  log("info", "workflow ended", { workflow: workflowId, outcome: workflow.outcome ?? "completed", totalMs: now - workflow.createdAt, ...(stores.length ? { stores: stores.length } : {}) });
  // A lost send leaves the store pending with no attempt: the cron's sweepStores sends it again.
  if (stores.length) for (const step of stores) await startStore(env, step);
  else await scheduleWorkflowDelivery(env, workflow, firstJobId, now);
  return true;
}

/** Cancels each step not yet ended (through finishJob, which advances the workflow again: idempotent). */
async function cancelUnended(env: Env, rows: JobRow[]): Promise<void> {
  for (const row of rows) {
    if (row.status === "queued" || row.status === "processing") await finishJob(env, row.id, { status: "cancelled" });
  }
}

/** POST /v1/workflows/:id/cancel: decides `cancelled` (unless already decided) and cancels every step not ended; whether this call decided it. */
export async function cancelWorkflow(env: Env, workflowId: string, now = Date.now()): Promise<boolean> {
  const db = database(env.DB);
  const decided = await decideOutcome(db, workflowId, { status: "cancelled" });
  const rows = await stepJobs(db, workflowId);
  await cancelUnended(env, rows);
  // Every step may have ended already (a cancel racing the last completion): end it here.
  if (rows[0]) await endAndReport(env, workflowId, rows[0].id, now);
  return decided;
}

/**
 * The sweep's repair (TUNABLES.sweep.workflowRepairAfterMs): each workflow not ended that old is
 * advanced again from each of its ended steps, and each released step still queued is put in
 * line again. Both are idempotent, so this changes nothing where the advance ran; where it
 * crashed after a step's end (a dependent never released, the rest never cancelled, the end
 * never recorded) or a send failed, it does what was left.
 */
export async function repairWorkflows(env: Env, now: number): Promise<void> {
  const db = database(env.DB);
  const { workflowRepairAfterMs, batchSize } = TUNABLES.sweep;
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const page = await openWorkflows(db, now - workflowRepairAfterMs, batchSize, after);
    for (const workflow of page) {
      for (const step of await stepJobs(db, workflow.id)) {
        if (step.status === "completed" || step.status === "failed" || step.status === "cancelled") await advanceWorkflow(env, step, now, { repair: true });
        // Released but perhaps never put in line (the create's or an advance's send failed):
        // again; the limiter and the runner ignore a job they know.
        else if (step.status === "queued" && step.releasedAt !== null) await putStepInLine(env, step);
      }
    }
    if (page.length < batchSize) break;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

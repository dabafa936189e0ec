// /v1/workflows: create (either dialect, or from a template), retrieve (Prefer: wait), list,
// events, cancel, delete (docs/workflows.md). Each step is a job (routes/jobs.ts shows one).
import { Hono } from "hono";
import { FINAL_STATUSES } from "../contract/job.ts";
import { PRIORITY_DEFAULT } from "../contract/job.ts";
import { listPageQuery, stepStorePrefix, type HttpWorkflow } from "../contract/workflow.ts";
import { database } from "../db/client.ts";
import type { jobs } from "../db/schema.ts";
import { deleteWorkflowRows, findOrgWorkflow, insertWorkflow, listWorkflows, stepJobs } from "../db/workflows.ts";
import { viewOptions } from "../jobs/view.ts";
import { toHttpWorkflow } from "../jobs/workflow-view.ts";
import { iso, newId } from "../lib/crypto.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { quotaExceeded, quotaHeaders } from "../limits/headers.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { deleteOutputs } from "../ops/retention.ts";
import { cancelWorkflow, putStepInLine } from "../runner/workflow.ts";
import { pageOf, pagePosition } from "./cursor.ts";
import { idempotency } from "./idempotency.ts";
import { createBodyLimit } from "./jobs.ts";
import { zodValidator } from "./validation.ts";
import { readPreferringWait, streamUntilFinal, type StreamEvent } from "./wait.ts";
import { createWorkflowValidation } from "./workflow-validation.ts";

type AppEnv = { Bindings: Env };

export const workflowsRoutes = new Hono<AppEnv>()
  .post(
    "/",
    createBodyLimit(),
    createWorkflowValidation(),
    idempotency(),
    async (c) => {
      const request = c.req.valid("json");
      const org = c.get("org");
      const mode = c.get("mode");
      const id = newId("wfl");
      const now = Date.now();
      const names = Object.keys(request.steps);
      const jobIds = Object.fromEntries(names.map((name) => [name, newId("job")]));
      // Every step is a job of the plan's hourly quota: all are admitted at once, or none
      // and nothing is created (429 as for a job).
      const limiter = limiterFor(c.env, org.id, mode);
      const verdict = await limiter.admitAll(Object.values(jobIds), org.plan);
      if (!verdict.ok) throw quotaExceeded(verdict, org.plan);
      // Steps reading the workflow's input are released (put in line) now; the others when
      // the step they use completes (runner/workflow.ts). Their params get the url then.
      // A step whose outputs the workflow's `store` copies carries that store as a job does,
      // under its own prefix; its copy starts only once the whole workflow completed.
      const stored = new Set(request.store?.steps);
      const rows: (typeof jobs.$inferInsert)[] = names.map((name) => {
        const step = request.steps[name]!;
        const root = step.use === undefined;
        return {
          id: jobIds[name]!,
          orgId: org.id,
          mode,
          type: step.type,
          status: "queued",
          priority: PRIORITY_DEFAULT,
          params: root ? { ...step.params, url: request.url } : step.params,
          webhookUrl: null,
          webhookSecret: null,
          metadata: request.metadata ?? null,
          createdAt: now,
          workflowId: id,
          workflowStep: name,
          releasedAt: root ? now : null,
          storeDestinationId: request.store && stored.has(name) ? request.store.destination : null,
          storePrefix: request.store && stored.has(name) ? stepStorePrefix(request.store, name) : null,
        };
      });
      try {
        await insertWorkflow(
          database(c.env.DB),
          {
            id,
            orgId: org.id,
            mode,
            url: request.url,
            steps: request.steps,
            templateId: request.template ?? null,
            webhookUrl: request.webhookUrl ?? null,
            metadata: request.metadata ?? null,
            store: request.store ?? null,
            createdAt: now,
          },
          rows,
        );
      } catch (error) {
        await Promise.all(Object.values(jobIds).map((jobId) => limiter.forget(jobId)));
        throw error;
      }
      log("info", "workflow created", { workflow: id, steps: names.length, template: request.template ?? null });
      // The first steps go in line now; a failed send leaves them to the queue's retry of this
      // request (Idempotency-Key) only if the caller retries, so it is awaited.
      await Promise.all(rows.filter((row) => row.releasedAt !== null).map((row) => putStepInLine(c.env, { id: row.id!, orgId: org.id, mode, priority: row.priority!, createdAt: now })));
      return c.json(
        { id, status: "queued" as const, createdAt: iso(now)!, steps: Object.fromEntries(names.map((name) => [name, { jobId: jobIds[name]! }])) },
        201,
        { location: `/v1/workflows/${id}`, ...quotaHeaders(verdict) },
      );
    },
  )
  .get("/", zodValidator("query", listPageQuery), async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const db = database(c.env.DB);
    const rows = await listWorkflows(db, { orgId: c.get("org").id, mode: c.get("mode"), limit, before: pagePosition(cursor) });
    const options = viewOptions(c);
    return c.json(await pageOf(rows, limit, async (row) => toHttpWorkflow(row, await stepJobs(db, row.id), options)));
  })
  .get("/:id", async (c) => {
    const workflow = await readPreferringWait(c, readWorkflow(c));
    if (!workflow) throw notFound("workflow");
    return c.json(workflow);
  })
  .get("/:id/events", async (c) => {
    // As a job's events (routes/jobs.ts): `workflow` first (the whole of it), then `step` for
    // each step whose status or progress changed (started, progressed, ended), and `end` with
    // the workflow once it ended.
    const read = readWorkflow(c);
    if (!(await read())) throw notFound("workflow");
    const seen = new Map<string, string>();
    let first = true;
    return streamUntilFinal(
      c,
      read,
      (workflow) => {
        const changed = Object.entries(workflow.steps).filter(([name, step]) => seen.get(name) !== `${step.status}:${step.progress}`);
        const ended = FINAL_STATUSES.includes(workflow.status);
        const events: StreamEvent[] = first
          ? [{ event: "workflow", data: workflow }]
          : changed.map(([name, step]) => ({ event: "step", data: { workflow: workflow.id, step: name, ...step } }));
        if (ended) events.push({ event: "end", data: workflow });
        for (const [name, step] of Object.entries(workflow.steps)) seen.set(name, `${step.status}:${step.progress}`);
        first = false;
        return events;
      },
      { workflow: c.req.param("id") },
    );
  })
  .post("/:id/cancel", async (c) => {
    const db = database(c.env.DB);
    const id = c.req.param("id");
    const row = await findOrgWorkflow(db, c.get("org").id, c.get("mode"), id);
    if (!row) throw notFound("workflow");
    if (row.endedAt !== null || !(await cancelWorkflow(c.env, id))) {
      const now = (await readWorkflow(c)())!;
      return c.json({ success: false, workflowId: id, status: now.status });
    }
    return c.json({ success: true, workflowId: id });
  })
  .delete("/:id", async (c) => {
    // Only an ended workflow: its step jobs and their outputs go as a job's DELETE removes them.
    const db = database(c.env.DB);
    const id = c.req.param("id");
    const row = await findOrgWorkflow(db, c.get("org").id, c.get("mode"), id);
    if (!row) throw notFound("workflow");
    if (row.endedAt === null) throw new AppError("workflow_not_ended", "the workflow has not ended; cancel it first (POST /v1/workflows/:id/cancel)");
    const steps = await stepJobs(db, id);
    // Outputs first: should the rows' delete fail, a retry still finds the workflow to delete.
    for (const step of steps) await deleteOutputs(c.env.OUTPUTS, step.id);
    await deleteWorkflowRows(db, id, steps.map((step) => step.id));
    return c.json({ id, deleted: true as const });
  });

/** Reads the workflow of the request's organization and mode as the API shows it (undefined if none). */
function readWorkflow(c: { env: Env; req: { url: string; param(name: "id"): string }; get(key: "org"): { id: string }; get(key: "mode"): "live" | "test" }) {
  const db = database(c.env.DB);
  return async (): Promise<HttpWorkflow | undefined> => {
    const row = await findOrgWorkflow(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    return row ? toHttpWorkflow(row, await stepJobs(db, row.id), viewOptions(c)) : undefined;
  };
}

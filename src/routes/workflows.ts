// /v1/workflows: create (either dialect, or from a template), retrieve (Prefer: wait), list,
// events, cancel, delete (docs/workflows.md). Each step is a job (routes/jobs.ts shows one).
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { FINAL_STATUSES } from "../contract/job.ts";
import { PRIORITY_DEFAULT } from "../contract/job.ts";
import { listPageQuery, stepStorePrefix, type HttpWorkflow } from "../contract/workflow.ts";
import { database } from "../db/client.ts";
import { isKeyActive } from "../db/orgs.ts";
import type { jobs } from "../db/schema.ts";
import { deleteWorkflowRows, findOrgWorkflow, insertWorkflow, listWorkflows, stepJobs } from "../db/workflows.ts";
import { viewOptions } from "../jobs/view.ts";
import { toHttpWorkflow } from "../jobs/workflow-view.ts";
import { iso, newId } from "../lib/crypto.ts";
import { AppError, errorBody, invalidInput, notFound } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { tunablesFor } from "../lib/tunables.ts";
import { quotaExceeded, quotaHeaders } from "../limits/headers.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { deleteOutputs } from "../ops/retention.ts";
import { cancelWorkflow, putStepInLine } from "../runner/workflow.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { idempotency } from "./idempotency.ts";
import { createBodyLimit } from "./jobs.ts";
import { zodValidator } from "./validation.ts";
import { holdUntilFinal, keyWatch, preferredWaitS } from "./wait.ts";
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
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && !before) throw invalidInput("cursor is not valid; pass nextCursor from a previous page", [{ path: "cursor", message: "not a cursor from this API" }]);
    const db = database(c.env.DB);
    const rows = await listWorkflows(db, { orgId: c.get("org").id, mode: c.get("mode"), limit, before });
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const options = viewOptions(c);
    const last = page.at(-1);
    return c.json({
      data: await Promise.all(page.map(async (row) => toHttpWorkflow(row, await stepJobs(db, row.id), options))),
      nextCursor: hasMore && last ? encodeCursor(last) : null,
      hasMore,
    });
  })
  .get("/:id", async (c) => {
    const db = database(c.env.DB);
    const read = readWorkflow(c);
    const waitS = preferredWaitS(c.req.header("prefer"));
    let workflow;
    if (waitS === undefined) workflow = await read();
    else {
      const wait = tunablesFor(c.env).wait;
      const key = keyWatch(() => isKeyActive(db, c.get("apiKeyId")), wait.keyCheckMs);
      workflow = await holdUntilFinal(read, { waitS, signal: c.req.raw.signal, beforeRead: key.due, timing: wait });
      await key.now();
    }
    if (!workflow) throw notFound("workflow");
    if (waitS !== undefined) {
      c.header("preference-applied", `wait=${waitS}`);
      c.header("vary", "Prefer");
    }
    return c.json(workflow);
  })
  .get("/:id/events", async (c) => {
    // As a job's events (routes/jobs.ts): `workflow` first (the whole of it), then `step` for
    // each step whose status or progress changed (started, progressed, ended), and `end` with
    // the workflow once it ended. The key is re-checked every wait.keyCheckMs.
    const db = database(c.env.DB);
    const read = readWorkflow(c);
    if (!(await read())) throw notFound("workflow");
    const wait = tunablesFor(c.env).wait;
    const key = keyWatch(() => isKeyActive(db, c.get("apiKeyId")), wait.keyCheckMs);
    return streamSSE(c, async (stream) => {
      const seen = new Map<string, string>();
      let first = true;
      const send = async (workflow: HttpWorkflow) => {
        const changed = Object.entries(workflow.steps).filter(([name, step]) => seen.get(name) !== `${step.status}:${step.progress}`);
        const ended = FINAL_STATUSES.includes(workflow.status);
        if (!first && !ended && changed.length === 0) return;
        // Nothing of the workflow goes out on a key revoked since the last check.
        await key.now();
        if (first) await stream.writeSSE({ event: "workflow", data: JSON.stringify(workflow) });
        else for (const [name, step] of changed) await stream.writeSSE({ event: "step", data: JSON.stringify({ workflow: workflow.id, step: name, ...step }) });
        for (const [name, step] of Object.entries(workflow.steps)) seen.set(name, `${step.status}:${step.progress}`);
        first = false;
        if (ended) await stream.writeSSE({ event: "end", data: JSON.stringify(workflow) });
      };
      try {
        await holdUntilFinal(read, { waitS: wait.maxS, signal: c.req.raw.signal, onRead: send, beforeRead: key.due, timing: wait });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        log("info", "event stream ended: its API key was revoked", { workflow: c.req.param("id"), key: c.get("apiKeyId") });
        await stream.writeSSE({ event: "error", data: JSON.stringify(errorBody(error.code, error.message, error.details, c.get("requestId"))) });
      }
    });
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

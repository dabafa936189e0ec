// /v1/jobs: create (either dialect), retrieve, list, cancel, delete.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { FINAL_STATUSES } from "../contract/job.ts";
import { listJobsQuery, nestQuery, queryPath } from "../contract/list-jobs.ts";
import { canonicalJobType, httpJobType } from "../contract/names.ts";
import { database } from "../db/client.ts";
import { deleteJobRow, findOrgJob, insertJob, listJobs } from "../db/jobs.ts";
import { toHttpJob, viewOptions } from "../jobs/view.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { quotaExceeded, quotaHeaders } from "../limits/headers.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { iso, newId } from "../lib/crypto.ts";
import { deleteOutputs } from "../ops/retention.ts";
import { finishJob } from "../runner/finish.ts";
import { enqueueJob } from "../runner/queue.ts";
import { pageOf, pagePosition } from "./cursor.ts";
import { createJobValidation } from "./create-job-validation.ts";
import { idempotency } from "./idempotency.ts";
import { zodValidator } from "./validation.ts";
import { readPreferringWait, streamUntilFinal } from "./wait.ts";

export const MAX_BODY_BYTES = 64 * 1024;

/** A create's body: at most MAX_BODY_BYTES (413 past it), for jobs and workflows alike. */
export const createBodyLimit = () =>
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError("payload_too_large", `the request body is over ${MAX_BODY_BYTES / 1024} KiB`);
    },
  });

type AppEnv = { Bindings: Env };

export const jobsRoutes = new Hono<AppEnv>()
  .post(
    "/",
    createBodyLimit(),
    // Validated before the idempotency check: an invalid request saves nothing.
    createJobValidation(),
    idempotency(),
    async (c) => {
      const request = c.req.valid("json");
      const org = c.get("org");
      const mode = c.get("mode");
      const id = newId("job");
      // The quota is taken first and atomically (one limiter per organization and mode);
      // a refused request creates nothing, and a create that fails gives its place back.
      const limiter = limiterFor(c.env, org.id, mode);
      const verdict = await limiter.admit(id, org.plan);
      if (!verdict.ok) throw quotaExceeded(verdict, org.plan);
      const now = Date.now();
      try {
        await insertJob(database(c.env.DB), {
          id,
          orgId: org.id,
          mode,
          type: request.type,
          status: "queued",
          priority: request.priority,
          params: request.params,
          webhookUrl: request.webhookUrl ?? null,
          webhookSecret: request.webhookSecret ?? null,
          metadata: request.metadata ?? null,
          storeDestinationId: request.store?.destination ?? null,
          storePrefix: request.store ? (request.store.prefix ?? "") : null,
          createdAt: now,
        });
        await enqueueJob(c.env, { jobId: id, orgId: org.id, mode, priority: request.priority, createdAt: now });
      } catch (error) {
        await limiter.forget(id);
        throw error;
      }
      // Put the job in line now instead of after the queue's batching delay; the queue
      // message stays as the at-least-once path (the limiter ignores jobs it knows).
      c.executionCtx.waitUntil(
        limiter
          .enqueue({ jobId: id, priority: request.priority, createdAt: now })
          .catch((error: unknown) => log("warn", "direct dispatch failed; the queue will carry the job", { job: id, error: String(error) })),
      );
      return c.json(
        { id, type: httpJobType(request.type), status: "queued" as const, priority: request.priority, createdAt: iso(now)! },
        201,
        { location: `/v1/jobs/${id}`, ...quotaHeaders(verdict) },
      );
    },
  )
  // Filters come as `created[gte]=…`; problems are named that way too.
  .get("/", zodValidator("query", listJobsQuery, { read: (c) => nestQuery(c.req.query()), paths: queryPath }), async (c) => {
    const { limit, cursor, status: asked, type, created, metadata } = c.req.valid("query");
    const status = asked === "pending" ? "queued" : asked;
    const before = pagePosition(cursor);
    const rows = await listJobs(database(c.env.DB), {
      orgId: c.get("org").id,
      mode: c.get("mode"),
      status,
      type: type === undefined ? undefined : canonicalJobType(type),
      createdGte: created?.gte === undefined ? undefined : created.gte * 1000,
      createdLt: created?.lt === undefined ? undefined : created.lt * 1000,
      metadata,
      limit,
      before,
    });
    const options = viewOptions(c);
    return c.json(await pageOf(rows, limit, (row) => toHttpJob(row, options)));
  })
  .get("/:id", async (c) => {
    const db = database(c.env.DB);
    const row = await readPreferringWait(c, () => findOrgJob(db, c.get("org").id, c.get("mode"), c.req.param("id")));
    if (!row) throw notFound("job");
    return c.json(await toHttpJob(row, viewOptions(c)));
  })
  .get("/:id/events", async (c) => {
    // `progress` each time the status or progress changed, then `end` with the final job.
    const db = database(c.env.DB);
    const read = () => findOrgJob(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!(await read())) throw notFound("job");
    let last = "";
    let playableSent = false;
    return streamUntilFinal(
      c,
      read,
      async (row) => {
        const event = FINAL_STATUSES.includes(row.status) ? "end" : "progress";
        const seen = `${row.status}:${row.progress}`;
        // `playable` once a connection, when the job's stream first plays (or it did before the connection), before its other news.
        const playable = !playableSent && row.playableAt !== null && (row.status === "processing" || row.status === "completed");
        const unchanged = event === "progress" && seen === last;
        if (unchanged && !playable) return [];
        last = seen;
        const data = await toHttpJob(row, viewOptions(c));
        playableSent ||= playable;
        return [...(playable ? [{ event: "playable", data }] : []), ...(unchanged ? [] : [{ event, data }])];
      },
      { job: c.req.param("id") },
    );
  })
  .post("/:id/cancel", async (c) => {
    const db = database(c.env.DB);
    const id = c.req.param("id");
    const row = await findOrgJob(db, c.get("org").id, c.get("mode"), id);
    if (!row) throw notFound("job");
    if (!(await finishJob(c.env, id, { status: "cancelled" }))) {
      const now = await findOrgJob(db, c.get("org").id, c.get("mode"), id);
      return c.json({ success: false, jobId: id, status: now!.status });
    }
    return c.json({ success: true, jobId: id });
  })
  .delete("/:id", async (c) => {
    // Like Stripe's DELETE: the job, its webhook deliveries and its outputs go at once,
    // and the answer is {id, deleted: true}. A job still running is cancelled first.
    const db = database(c.env.DB);
    const id = c.req.param("id");
    const row = await findOrgJob(db, c.get("org").id, c.get("mode"), id);
    if (!row) throw notFound("job");
    if (row.status === "queued" || row.status === "processing") await finishJob(c.env, id, { status: "cancelled" });
    // Outputs first: should the row delete fail, a retry still finds the job to delete.
    await deleteOutputs(c.env.OUTPUTS, id);
    await deleteJobRow(db, id);
    return c.json({ id, deleted: true as const });
  });

// The Worker `npm run bench` runs (`wrangler dev bench/worker/index.ts`, with wrangler.toml's
// bindings): the production Worker of src/index.ts with every entry point's env counted per
// job (stats.ts), and GET/DELETE /admin/stats to read and reset the counts.
import { Hono } from "hono";
import { adminAuth } from "../../src/auth/admin.ts";
import worker, { JobRunner as ProductionJobRunner, OrgLimiter as ProductionOrgLimiter, ProcessorPool as ProductionProcessorPool } from "../../src/index.ts";
import { AppError, errorBody } from "../../src/lib/errors.ts";
import { countAlarm, instrument, resetStats, statsSnapshot } from "./stats.ts";

export { ContainerProxy, ProcessorContainer } from "../../src/index.ts";

// The limiter and the pool also count their alarm invocations, which Cloudflare bills as requests.
export class OrgLimiter extends ProductionOrgLimiter {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, instrument(env, "OrgLimiter"));
  }

  override async alarm(): Promise<void> {
    countAlarm("ORG_LIMITER");
    await super.alarm();
  }
}

export class ProcessorPool extends ProductionProcessorPool {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, instrument(env, "ProcessorPool"));
  }

  override async alarm(): Promise<void> {
    countAlarm("PROCESSOR_POOL");
    await super.alarm();
  }
}

// The runner's alarms are not counted: it calls alarm() itself too (a poke, an end it heard),
// which no override can tell apart; while its processor pushes, its watchdog never fires.
export class JobRunner extends ProductionJobRunner {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, instrument(env, "JobRunner"));
  }
}

/** /admin/stats behind the admin token; every other request goes to the production Worker, counted. */
export const benchApp = new Hono<{ Bindings: Env }>()
  .use("/admin/stats", adminAuth())
  .get("/admin/stats", (c) => c.json(statsSnapshot()))
  .delete("/admin/stats", (c) => {
    resetStats();
    return c.body(null, 204);
  })
  .all("*", (c) => worker.fetch(c.req.raw, instrument(c.env, c.req.raw), c.executionCtx))
  .onError((error, c) => {
    if (error instanceof AppError) return c.json(errorBody(error.code, error.message, error.details), error.status, error.headers);
    throw error;
  });

export default {
  fetch: benchApp.fetch,
  queue: (batch, env, ctx) => worker.queue(batch, instrument(env, `queue ${batch.queue}`), ctx),
  scheduled: (controller, env, ctx) => worker.scheduled(controller, instrument(env, "cron"), ctx),
} satisfies ExportedHandler<Env>;

// The processor's HTTP API (protocol in src/contract/processor-protocol.ts). Each attempt's
// routes answer only with that attempt's own token (ATTEMPT_TOKEN_HEADER), as if the
// attempt did not exist otherwise: in a container the API is reached through the Durable
// Object and from inside the container, where a tool parsing another job's untrusted file
// runs too (docs/security.md). PROCESSOR_TOKEN, when set (a processor reached over the
// network: local development, tests), is a gate on POST /jobs and GET /status only, so a
// Worker whose PROCESSOR_TOKEN changed still reaches the attempts it started.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { Hono, type Context } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import {
  ATTEMPT_TOKEN_HEADER,
  isEventsUrl,
  issuesOf,
  PROCESSOR_DRAINING_BODY,
  PROCESSOR_PROTOCOL_VERSION,
  processorJobRequest,
  PROTOCOL_HEADER,
  protocolMismatchBody,
  protocolVersionOf,
  PUSH_PATH_QUERY,
  speaksOurProtocol,
  type ProcessorError,
  type ProcessorJobState,
  type ProcessorStatus,
  type PushPath,
} from "../../src/contract/processor-protocol.ts";
import { JOB_TYPES } from "../../src/contract/registry.ts";
import type { Config } from "./config.ts";
import type { JobTable } from "./jobs.ts";
import { log } from "./log.ts";
import { processors } from "./processors/index.ts";
import { toolVersions } from "./tools/versions.ts";

export function createApp(config: Config, jobs: JobTable) {
  const app = new Hono();

  // Every answer names this processor's protocol version, refusals included.
  app.use(async (c, next) => {
    await next();
    c.header(PROTOCOL_HEADER, String(PROCESSOR_PROTOCOL_VERSION));
  });
  if (config.PROCESSOR_TOKEN) {
    const gate = bearerAuth({ token: config.PROCESSOR_TOKEN });
    app.on("POST", "/jobs", gate);
    app.get("/status", gate);
  }
  // Whether the request names attempt `id` with its token. Unknown, or not asked with its
  // token: the same 404, so nothing tells the two apart.
  const asked = (c: Context) => jobs.holds(c.req.param("id")!, c.req.header(ATTEMPT_TOKEN_HEADER));
  const unknown = (c: Context) => c.json({ error: "unknown job" } satisfies ProcessorError, 404);

  const isolation = jobs.isolation.on ? { on: true } : { on: false, reason: jobs.isolation.reason };
  // Public, as a load balancer's check: whether the processor is up, and whether its tools are isolated (and why not).
  app.get("/healthz", (c) => c.json({ ok: true, isolation }));

  app.get("/status", async (c) => {
    // /healthz/processor names the Worker's event URL: checked now, so a probe reports the route (only that path, http(s)).
    const eventsUrl = c.req.query(PUSH_PATH_QUERY);
    const pushPath = eventsUrl && isEventsUrl(eventsUrl) ? await jobs.pushPaths.check(eventsUrl) : jobs.pushPaths.latest;
    return c.json({
      ok: true,
      protocol: PROCESSOR_PROTOCOL_VERSION,
      running: jobs.running,
      jobTypes: JOB_TYPES.filter((t) => processors[t]),
      tools: await toolVersions(),
      draining: jobs.draining,
      isolation,
      ...(pushPath ? { pushPath } : {}),
    } satisfies ProcessorStatus);
  });

  app.post("/jobs", async (c) => {
    // A Worker of another version would misread what this processor pushes: refused
    // before anything runs; the runner seats the attempt on another instance.
    const worker = protocolVersionOf(c.req.header(PROTOCOL_HEADER));
    if (!speaksOurProtocol(worker)) {
      log("error", "start refused: the Worker speaks another protocol version", { processor: PROCESSOR_PROTOCOL_VERSION, worker });
      return c.json(protocolMismatchBody({ processor: PROCESSOR_PROTOCOL_VERSION, worker }), 409);
    }
    // The Worker validated the params already; checking again keeps the processor safe on its own.
    const request = processorJobRequest.safeParse(await c.req.json().catch(() => undefined));
    if (!request.success) return c.json({ error: "body must be a start request {id, type, params, callback}", issues: issuesOf(request.error) } satisfies ProcessorError, 400);
    // Checked before the first start that names its origin: the runner learns at once whether to wait for events or to poll.
    const pushPath = await jobs.pushPaths.forStart(request.data.callback.url);
    const state = jobs.start(request.data);
    if (state === "wrong token") {
      log("warn", "start refused: the attempt exists with another token", { job: request.data.id });
      return c.json({ error: "this attempt exists with another token" } satisfies ProcessorError, 403);
    }
    // Draining (SIGTERM): a new attempt goes elsewhere; an attempt this processor has still answers its state.
    if (state === "draining") return c.json(PROCESSOR_DRAINING_BODY, 503);
    return c.json(withPushPath(state, pushPath), 202);
  });

  app.get("/jobs/:id", (c) => (asked(c) ? c.json(withPushPath(jobs.get(c.req.param("id"))!, jobs.pushPaths.latest)) : unknown(c)));

  // Only for an output the processor could not upload itself (src/runner/outputs.ts).
  app.get("/jobs/:id/outputs/:name", (c) => {
    if (!asked(c)) return unknown(c);
    const output = jobs.output(c.req.param("id"), c.req.param("name"));
    if (!output) return c.json({ error: "unknown output" } satisfies ProcessorError, 404);
    const body = Readable.toWeb(createReadStream(output.path)) as ReadableStream;
    return c.body(body, 200, { "content-type": output.contentType, "content-length": String(output.size) });
  });

  app.post("/jobs/:id/cancel", async (c) => (asked(c) ? c.json((await jobs.cancel(c.req.param("id")))!) : unknown(c)));

  // An attempt already gone (or never known) has nothing to delete: 204 as well.
  app.delete("/jobs/:id", async (c) => {
    const id = c.req.param("id");
    if (!jobs.get(id)) return c.body(null, 204);
    if (!asked(c)) return unknown(c);
    await jobs.remove(id);
    return c.body(null, 204);
  });

  return app;
}

/** A running state as answered (not pushed) says whether the push path works (processor-protocol.ts pushPath). */
function withPushPath(state: ProcessorJobState, pushPath: PushPath | undefined): ProcessorJobState {
  return state.state === "running" && pushPath ? { ...state, pushPath } : state;
}

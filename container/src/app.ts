// The processor's HTTP API (protocol in src/contract/processor-protocol.ts).
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import {
  isEventsUrl,
  issuesOf,
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
  if (config.PROCESSOR_TOKEN) app.use("/jobs/*", bearerAuth({ token: config.PROCESSOR_TOKEN }));

  app.get("/status", async (c) => {
    // /healthz/processor names the Worker's event URL: checked now, so a probe reports the route (only that path, http(s)).
    const asked = c.req.query(PUSH_PATH_QUERY);
    const pushPath = asked && isEventsUrl(asked) ? await jobs.pushPaths.check(asked) : jobs.pushPaths.latest;
    return c.json({
      ok: true,
      protocol: PROCESSOR_PROTOCOL_VERSION,
      running: jobs.running,
      jobTypes: JOB_TYPES.filter((t) => processors[t]),
      tools: await toolVersions(),
      ...(pushPath ? { pushPath } : {}),
    } satisfies ProcessorStatus);
  });

  app.post("/jobs", async (c) => {
    // A Worker of another version would misread what this processor pushes: refused
    // before anything runs, and the runner treats the refusal as an unreachable processor.
    const worker = protocolVersionOf(c.req.header(PROTOCOL_HEADER));
    if (!speaksOurProtocol(worker)) {
      log("error", "start refused: the Worker speaks another protocol version", { processor: PROCESSOR_PROTOCOL_VERSION, worker });
      return c.json(protocolMismatchBody({ processor: PROCESSOR_PROTOCOL_VERSION, worker }), 409);
    }
    // The Worker validated the params already; checking again keeps the processor safe on its own.
    const request = processorJobRequest.safeParse(await c.req.json().catch(() => undefined));
    if (!request.success) return c.json({ error: "body must be a start request {id, type, params, inputUrl?, callback?}", issues: issuesOf(request.error) } satisfies ProcessorError, 400);
    // Checked before the first start that names its origin: the runner learns at once whether to wait for events or to poll.
    const pushPath = request.data.callback ? await jobs.pushPaths.forStart(request.data.callback.url) : undefined;
    return c.json(withPushPath(jobs.start(request.data), pushPath), 202);
  });

  app.get("/jobs/:id", (c) => {
    const state = jobs.get(c.req.param("id"));
    return state ? c.json(withPushPath(state, jobs.pushPaths.latest)) : c.json({ error: "unknown job" } satisfies ProcessorError, 404);
  });

  // Only for an output the processor could not upload itself (src/runner/outputs.ts).
  app.get("/jobs/:id/outputs/:name", (c) => {
    const output = jobs.output(c.req.param("id"), c.req.param("name"));
    if (!output) return c.json({ error: "unknown output" } satisfies ProcessorError, 404);
    const body = Readable.toWeb(createReadStream(output.path)) as ReadableStream;
    return c.body(body, 200, { "content-type": output.contentType, "content-length": String(output.size) });
  });

  app.post("/jobs/:id/cancel", async (c) => {
    const state = await jobs.cancel(c.req.param("id"));
    return state ? c.json(state) : c.json({ error: "unknown job" } satisfies ProcessorError, 404);
  });

  app.delete("/jobs/:id", async (c) => {
    await jobs.remove(c.req.param("id"));
    return c.body(null, 204);
  });

  return app;
}

/** A running state as answered (not pushed) says whether the push path works (processor-protocol.ts pushPath). */
function withPushPath(state: ProcessorJobState, pushPath: PushPath | undefined): ProcessorJobState {
  return state.state === "running" && pushPath ? { ...state, pushPath } : state;
}

// The processor's HTTP API (protocol in src/contract/processor-protocol.ts).
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { JOB_TYPES } from "../../src/contract/registry.ts";
import { jobTypes } from "../../src/contract/registry.ts";
import { uploadRefId } from "../../src/contract/uploads.ts";
import type { Config } from "./config.ts";
import type { JobTable } from "./jobs.ts";
import { processors } from "./processors/index.ts";
import { toolVersions } from "./tools/versions.ts";

export function createApp(config: Config, jobs: JobTable) {
  const app = new Hono();
  if (config.PROCESSOR_TOKEN) app.use("/jobs/*", bearerAuth({ token: config.PROCESSOR_TOKEN }));

  app.get("/status", async (c) =>
    c.json({
      ok: true,
      running: jobs.running,
      jobTypes: JOB_TYPES.filter((t) => processors[t]),
      tools: await toolVersions(),
    }),
  );

  app.post("/jobs", async (c) => {
    const body = (await c.req.json().catch(() => null)) as { id?: unknown; type?: unknown; params?: unknown; inputUrl?: unknown; callback?: unknown } | null;
    const type = typeof body?.type === "string" && Object.hasOwn(jobTypes, body.type) ? (body.type as keyof typeof jobTypes) : undefined;
    if (!body || typeof body.id !== "string" || !type) return c.json({ error: "body must be {id, type, params}" }, 400);
    // The Worker validated these already; checking again keeps the processor safe on its own.
    const params = jobTypes[type].params.safeParse(body.params);
    if (!params.success) return c.json({ error: "invalid params", issues: params.error.issues }, 400);
    // An upload's signed link comes with an `upload:` input, and only then.
    const fromUpload = uploadRefId(params.data.url) !== undefined;
    const inputUrl = typeof body.inputUrl === "string" && URL.canParse(body.inputUrl) ? body.inputUrl : undefined;
    if (fromUpload !== (inputUrl !== undefined)) return c.json({ error: "inputUrl is required with an upload: input, and refused otherwise" }, 400);
    const callback = parseCallback(body.callback);
    if (callback === null) return c.json({ error: "callback must be {url: an http(s) URL, token: a string, outputs: an http(s) URL}" }, 400);
    return c.json(jobs.start({ id: body.id, type, params: params.data, ...(inputUrl ? { inputUrl } : {}), ...(callback ? { callback } : {}) }), 202);
  });

  app.get("/jobs/:id", (c) => {
    const state = jobs.get(c.req.param("id"));
    return state ? c.json(state) : c.json({ error: "unknown job" }, 404);
  });

  // Only for an output the processor could not upload itself (src/runner/outputs.ts).
  app.get("/jobs/:id/outputs/:name", (c) => {
    const output = jobs.output(c.req.param("id"), c.req.param("name"));
    if (!output) return c.json({ error: "unknown output" }, 404);
    const body = Readable.toWeb(createReadStream(output.path)) as ReadableStream;
    return c.body(body, 200, { "content-type": output.contentType, "content-length": String(output.size) });
  });

  app.post("/jobs/:id/cancel", async (c) => {
    const state = await jobs.cancel(c.req.param("id"));
    return state ? c.json(state) : c.json({ error: "unknown job" }, 404);
  });

  app.delete("/jobs/:id", async (c) => {
    await jobs.remove(c.req.param("id"));
    return c.body(null, 204);
  });

  return app;
}

/** The runner's callback for pushed events and uploaded outputs: absent (undefined), well formed, or refused (null). */
function parseCallback(value: unknown): { url: string; token: string; outputs: string } | undefined | null {
  if (value === undefined) return undefined;
  const { url, token, outputs } = (value ?? {}) as { url?: unknown; token?: unknown; outputs?: unknown };
  const isHttp = (u: unknown): u is string => typeof u === "string" && URL.canParse(u) && /^https?:$/.test(new URL(u).protocol);
  return isHttp(url) && isHttp(outputs) && typeof token === "string" ? { url, token, outputs } : null;
}

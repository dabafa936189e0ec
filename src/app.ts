// The HTTP app: routes, request ids, and the one error handler that turns every failure
// into {"error": {code, message, details?, requestId}}.
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { apiKeyAuth } from "./auth/api-key.ts";
import { AppError, errorBody } from "./lib/errors.ts";
import { configureLogging, log } from "./lib/log.ts";
import { requestLog } from "./lib/request-log.ts";
import { healthRoutes } from "./routes/health.ts";
import { adminRoutes } from "./routes/admin.ts";
import { dashboardRoutes } from "./routes/dashboard/index.tsx";
import { faviconRoutes } from "./routes/dashboard/favicon.ts";
import { playerRoutes } from "./routes/dashboard/player.ts";
import { filesRoutes } from "./routes/files.ts";
import { jobsRoutes } from "./routes/jobs.ts";
import { templatesRoutes } from "./routes/templates.ts";
import { workflowsRoutes } from "./routes/workflows.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { webhooksRoutes } from "./routes/webhooks.ts";
import { destinationsRoutes } from "./routes/destinations.ts";
import { uploadContentRoutes, uploadsRoutes } from "./routes/uploads.ts";
import { tusRoutes } from "./routes/tus.ts";
import { usageRoutes } from "./routes/usage.ts";
import { readRateLimit } from "./limits/read-rate.ts";
import { PROCESSOR_EVENTS_PATH, PROCESSOR_INPUTS_PATH, PROCESSOR_OUTPUTS_PATH, PROCESSOR_PLAYABLE_PATH } from "./contract/processor-protocol.ts";
import { receiveProcessorEvent } from "./runner/events.ts";
import { readProcessorInput } from "./runner/input-read.ts";
import { receiveProcessorOutput } from "./runner/output-upload.ts";
import { receivePlayable } from "./runner/playable.ts";

export const app = new Hono<{ Bindings: Env }>();

app.use(async (c, next) => {
  configureLogging(c.env);
  await next();
});
app.use(requestId({ headerName: "x-request-id", limitLength: 200 }));
app.use(requestLog());

app.get("/", (c) => c.json({ name: "media-jobs", api: "/v1" }));
app.route("/healthz", healthRoutes);
// The local processor's pushed events and uploaded outputs (in production they come through
// the container's outbound handler).
app.post(PROCESSOR_EVENTS_PATH, (c) => (c.env.PROCESSOR_URL ? receiveProcessorEvent(c.env, c.req.raw) : c.notFound()));
app.put(`${PROCESSOR_OUTPUTS_PATH}/*`, (c) => (c.env.PROCESSOR_URL ? receiveProcessorOutput(c.env, c.req.raw) : c.notFound()));
app.post(PROCESSOR_PLAYABLE_PATH, (c) => (c.env.PROCESSOR_URL ? receivePlayable(c.env, c.req.raw) : c.notFound()));
app.get(`${PROCESSOR_INPUTS_PATH}/*`, (c) => (c.env.PROCESSOR_URL ? readProcessorInput(c.env, c.req.raw) : c.notFound()));
app.route("/v1/files", filesRoutes);
// The upload's own PUT target is signed instead of keyed (/v1/uploads/:id/content).
app.route("/v1/uploads", uploadContentRoutes);
// Resumable uploads authenticate themselves (an API key, or a browser's upload token) and
// answer CORS preflights, which carry no credentials.
app.route("/v1/uploads/tus", tusRoutes);
// "/v1/jobs/*" also matches "/v1/jobs" itself: listing it again would look the key up and
// count the read twice per request.
for (const path of ["/v1/jobs/*", "/v1/workflows/*", "/v1/templates/*", "/v1/usage", "/v1/uploads", "/v1/uploads/:id", "/v1/destinations", "/v1/destinations/*"]) app.use(path, apiKeyAuth(), readRateLimit());
app.route("/v1/jobs", jobsRoutes);
app.route("/v1/jobs", webhooksRoutes);
app.route("/v1/workflows", workflowsRoutes);
app.route("/v1/templates", templatesRoutes);
app.route("/v1/usage", usageRoutes);
app.route("/v1/destinations", destinationsRoutes);
app.route("/v1/uploads", uploadsRoutes);
app.route("/", openApiRoutes);
app.route("/admin", adminRoutes);
// Before the dashboard's pages: a script of the player, public, without their session and no-store.
app.route("/", playerRoutes);
app.route("/dashboard", dashboardRoutes);
app.route("/", faviconRoutes);

app.notFound((c) => c.json(errorBody("not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`, undefined, c.get("requestId")), 404));

app.onError((error, c) => {
  const id = c.get("requestId");
  if (error instanceof AppError) {
    return c.json(errorBody(error.code, error.message, error.details, id), error.status, error.headers);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return c.json(errorBody("invalid_input", error.message || "invalid request", undefined, id), error.status);
  }
  log("error", "unhandled error", { requestId: id, method: c.req.method, path: new URL(c.req.url).pathname, error: String((error as Error)?.stack ?? error) });
  return c.json(errorBody("internal_error", "something went wrong on our side; the error has been logged", undefined, id), 500);
});

// One structured line per request: request id, method, path, status, duration, and the
// organization when known. Never headers or bodies, so no key or secret reaches the logs.
import { createMiddleware } from "hono/factory";
import { log } from "./log.ts";

export const requestLog = () =>
  createMiddleware(async function requestLog(c, next) {
    const start = Date.now();
    await next();
    // Set by apiKeyAuth or dashboardSession when the request got that far; absent otherwise.
    const org: { id: string } | undefined = c.get("org");
    log(c.res.status >= 500 ? "error" : "info", "request", {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: new URL(c.req.url).pathname.replace(/^\/v1\/files\/[^/]+/, "/v1/files/<token>"),
      status: c.res.status,
      ms: Date.now() - start,
      ...(org ? { org: org.id } : {}),
    });
  });

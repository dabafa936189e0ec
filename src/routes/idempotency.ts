// Idempotency-Key on POST /v1/jobs (docs/api.md): the same key and body within 24 h
// replays the first response; another body → 422; while the first is in flight → 409.
// Keys are scoped per organization and mode. Only successful responses are kept (as
// Stripe does): a request that failed validation or hit a limit can be retried as is.
import { and, eq, lt } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { IDEMPOTENCY_TTL_MS } from "../db/idempotency.ts";
import { idempotencyKeys } from "../db/schema.ts";
import { AppError, invalidInput } from "../lib/errors.ts";
import { sha256Hex } from "../lib/crypto.ts";

export const idempotency = () =>
  createMiddleware<{ Bindings: Env }>(async function idempotency(c, next) {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (key.length < 1 || key.length > 255) throw invalidInput("Idempotency-Key must be 1 to 255 characters", [{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
    const db = database(c.env.DB);
    const org = c.get("org");
    const mode = c.get("mode");
    const requestHash = await sha256Hex(await c.req.text());
    const now = Date.now();
    const where = and(eq(idempotencyKeys.orgId, org.id), eq(idempotencyKeys.mode, mode), eq(idempotencyKeys.key, key));

    // A key older than the TTL is free again.
    await db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS)));
    const reserved = await db
      .insert(idempotencyKeys)
      .values({ orgId: org.id, mode, key, requestHash, createdAt: now })
      .onConflictDoNothing()
      .run();
    if ((reserved.meta.changes ?? 0) === 0) {
      const first = (await db.select().from(idempotencyKeys).where(where))[0];
      if (!first) throw keyInUse();
      if (first.requestHash !== requestHash) {
        throw new AppError("idempotency_key_reused", "this Idempotency-Key was used with a different request body; use a new key for a new request");
      }
      if (first.responseStatus === null || first.responseBody === null) throw keyInUse();
      return new Response(first.responseBody, {
        status: first.responseStatus,
        headers: { "content-type": "application/json", "idempotent-replayed": "true" },
      });
    }

    try {
      await next();
    } finally {
      const response = c.res;
      if (response.status >= 200 && response.status < 300) {
        await db
          .update(idempotencyKeys)
          .set({ responseStatus: response.status, responseBody: await response.clone().text() })
          .where(where);
      } else {
        await db.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.requestHash, requestHash)));
      }
    }
  });

function keyInUse(): AppError {
  return new AppError("idempotency_key_in_use", "a request with this Idempotency-Key is in progress; retry shortly", {
    headers: { "retry-after": "1" },
  });
}

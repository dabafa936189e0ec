// Idempotency keys of POST /v1/jobs (the middleware is routes/idempotency.ts): a key is
// remembered for TUNABLES.idempotency.keyTtlMs (24 h), then it is free again and the cron
// removes it.
import { and, isNotNull, lt } from "drizzle-orm";
import { TUNABLES } from "../lib/tunables.ts";
import { database } from "./client.ts";
import { idempotencyKeys } from "./schema.ts";

export const IDEMPOTENCY_TTL_MS = TUNABLES.idempotency.keyTtlMs;

/** Removes keys past the TTL (cron). */
export async function deleteExpiredIdempotencyKeys(d1: D1Database, now: number): Promise<void> {
  await database(d1)
    .delete(idempotencyKeys)
    .where(and(lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS), isNotNull(idempotencyKeys.createdAt)));
}

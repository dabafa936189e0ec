// Idempotency keys of POST /v1/jobs (the middleware is routes/idempotency.ts): a key is
// remembered for TUNABLES.idempotency.keyTtlMs (24 h), then it is free again and the cron
// removes it.
import { sql } from "drizzle-orm";
import { TUNABLES } from "../lib/tunables.ts";
import { deleteInBatches } from "./cleanup.ts";
import { database } from "./client.ts";
import { idempotencyKeys } from "./schema.ts";

export const IDEMPOTENCY_TTL_MS = TUNABLES.idempotency.keyTtlMs;

/** Removes keys past the TTL (cron), in bounded batches along idempotency_created; returns how many went. */
export function deleteExpiredIdempotencyKeys(d1: D1Database, now: number): Promise<number> {
  return deleteInBatches(database(d1), idempotencyKeys, sql`${idempotencyKeys.createdAt} < ${now - IDEMPOTENCY_TTL_MS}`);
}

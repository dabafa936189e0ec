// Bounded deletes for the cron's clean-ups: a table of millions of rows loses its expired
// ones a batch at a time, so no statement or run grows with the backlog.
import { getTableName, sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { TUNABLES } from "../lib/tunables.ts";
import type { Db } from "./client.ts";

export type CleanupLimits = { batchSize: number; maxBatchesPerRun: number };

/**
 * Deletes the rows of `table` matching `where` (an index must serve it), batchSize rows per
 * statement, at most maxBatchesPerRun statements; returns how many went. The next run
 * takes the rest.
 */
export async function deleteInBatches(db: Db, table: SQLiteTable, where: SQL, limits: CleanupLimits = TUNABLES.cleanup): Promise<number> {
  const { batchSize, maxBatchesPerRun } = limits;
  const name = sql.identifier(getTableName(table));
  let deleted = 0;
  for (let batch = 0; batch < maxBatchesPerRun; batch++) {
    const result = await db.run(sql`DELETE FROM ${name} WHERE rowid IN (SELECT rowid FROM ${name} WHERE ${where} LIMIT ${batchSize})`);
    const changes = result.meta.changes ?? 0;
    deleted += changes;
    if (changes < batchSize) break;
  }
  return deleted;
}

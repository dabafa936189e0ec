// A job row as the HTTP API shows it (docs/api.md), with freshly signed result links.
// Used by the API routes, the dashboard and the webhook consumer alike.
import type { HttpJob, JobErrorCode } from "../contract/job.ts";
import { httpJobType, type JobType } from "../contract/names.ts";
import type { JobStoreView } from "../contract/destinations.ts";
import { database, type Db } from "../db/client.ts";
import { storeObjectsOf } from "../db/destinations.ts";
import type { JobRow } from "../db/schema.ts";
import { signResult } from "../files/signing.ts";
import { iso } from "../lib/crypto.ts";

export interface ViewOptions {
  secret: string;
  origin: string;
  now: number;
  /** Reads the job's store rows; without it a job with `store` shows none. */
  db?: Db;
}

/** Links signed for a request: its own origin, valid from now. */
export function viewOptions(c: { env: Env; req: { url: string } }): ViewOptions {
  return { secret: c.env.FILES_SIGNING_SECRET, origin: new URL(c.req.url).origin, now: Date.now(), db: database(c.env.DB) };
}

export async function toHttpJob(row: JobRow, options: ViewOptions): Promise<HttpJob> {
  return {
    id: row.id,
    type: httpJobType(row.type as JobType),
    status: row.status,
    priority: row.priority,
    progress: row.status === "completed" ? 100 : row.progress,
    createdAt: iso(row.createdAt)!,
    ...(row.startedAt ? { startedAt: iso(row.startedAt) } : {}),
    ...(row.completedAt ? { completedAt: iso(row.completedAt) } : {}),
    ...(row.status === "completed" && row.result
      ? { result: (await signResult(row.result, { ...options, jobId: row.id })) as Record<string, unknown> }
      : {}),
    ...(row.status === "failed" ? { error: { code: (row.errorCode ?? "processing_failed") as JobErrorCode, message: row.errorMessage ?? "" } } : {}),
    metadata: row.metadata ?? {},
    timings: {
      queuedMs: row.queuedMs,
      retriesMs: row.retriesMs,
      startMs: row.startMs,
      fetchInputMs: row.fetchInputMs,
      processMs: row.processMs,
      storeOutputMs: row.storeOutputMs,
      reportMs: row.reportMs,
      ...(row.fanout ? { fanout: row.fanout } : {}),
    },
    ...(row.storeDestinationId ? { store: await storeView(row, options.db) } : {}),
    ...(await playableView(row, options)),
  };
}

/**
 * `playableAt` and the signed link a player starts from, once the job's stream plays (while it
 * runs and once completed; a failed or cancelled job's outputs are not served).
 */
async function playableView(row: JobRow, options: ViewOptions): Promise<Pick<HttpJob, "playableAt" | "playable">> {
  if (!row.playableAt || !row.playableUrl || (row.status !== "processing" && row.status !== "completed")) return {};
  const playable = (await signResult({ url: row.playableUrl }, { ...options, jobId: row.id })) as { url: string; expiresAt: string };
  return { playableAt: iso(row.playableAt)!, playable };
}

async function storeView(row: JobRow, db: Db | undefined): Promise<JobStoreView> {
  const objects = db && row.storeStatus ? await storeObjectsOf(db, row.id) : [];
  return {
    destination: row.storeDestinationId!,
    prefix: row.storePrefix ?? "",
    status: row.storeStatus,
    objects: objects.map(({ name, key, status, size, etag, error }) => ({ name, key, status, size, etag, error })),
  };
}

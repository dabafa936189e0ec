// Chunked encoding across seats (docs/fanout.md), the runner's side: whether a job is offered
// a fan-out, its parts' rows, and dropping the parts once the job ended. What the rows mean
// is decided in fanout-plan.ts. The JobRunner (job-runner.ts) holds the fanned-out job
// meanwhile and makes the calls; each part is a job of its own runner.
import { mayFanOut, type FanoutOffer } from "../contract/fanout.ts";
import type { JobParams } from "../contract/registry.ts";
import { database } from "../db/client.ts";
import { findOrganization } from "../db/orgs.ts";
import { deletePartRows, partsOf } from "../db/parts.ts";
import type { JobRow } from "../db/schema.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { log } from "../lib/log.ts";
import type { Tunables } from "../lib/tunables.ts";
import { deleteOutputs } from "../ops/retention.ts";
import { ended } from "./fanout-plan.ts";

/**
 * What a compressVideo or videoAdaptive attempt is offered: the seats its organization's plan allows
 * (`maxFanout`), when more than one. Never for a part or a stitch, nor for a mode that stays
 * on one seat; the processor decides from the input's length whether to take it.
 */
export async function fanoutOfferFor(env: Env, job: JobRow, tunables: Pick<Tunables, "fanout">): Promise<FanoutOffer | undefined> {
  if (job.parentJobId || job.part || !mayFanOut(job.type, job.params as JobParams<"compressVideo">)) return undefined;
  const org = await findOrganization(database(env.DB), job.orgId);
  const seats = org ? PLAN_LIMITS[org.plan].maxFanout : 1;
  if (seats < 2) return undefined;
  const { minSeconds, chunkSeconds, chunksPerSeat, maxChunks } = tunables.fanout;
  return { seats, minSeconds, chunkSeconds, chunksPerSeat, maxChunks };
}

/** A part's row as the parent reads it: chunks in order, the audio last. */
export async function partRows(env: Env, parentId: string): Promise<JobRow[]> {
  const rows = await partsOf(database(env.DB), parentId);
  const order = (row: JobRow) => (row.part?.role === "video" ? row.part.index : Number.MAX_SAFE_INTEGER);
  return rows.sort((a, b) => order(a) - order(b));
}

/**
 * Once a fanned-out job ended, however: each part not ended is cancelled (its runner lets go
 * of its seat), and every part's outputs and row are removed. `finish` is finishJob (passed in:
 * it calls this). Idempotent; the cron's retention removes what a crash here left.
 */
export async function dropParts(env: Env, parentId: string, finish: (id: string) => Promise<unknown>): Promise<void> {
  const rows = await partsOf(database(env.DB), parentId);
  if (!rows.length) return;
  for (const row of rows) if (!ended(row)) await finish(row.id);
  for (const row of rows) await deleteOutputs(env.OUTPUTS, row.id);
  await deletePartRows(database(env.DB), rows.map((row) => row.id));
  log("info", "fanned-out job's parts removed", { job: parentId, parts: rows.length });
}

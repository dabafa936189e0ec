// The runner's side of the processor pool (src/limits/processor-pool.ts): a job takes a
// seat before its attempt begins, or waits for one. While it waits, the runner holds the
// job (the limiter and the sweeper ask it: JobRunner `holds`, `poke`) and asks the pool
// again every waitCheckMs, so a lost call costs no more.
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import type { JobRow } from "../db/schema.ts";
import { POOL } from "../limits/pool-plan.ts";
import { processorPool } from "../limits/processor-pool.ts";

/** What a job waiting for a seat needs to begin once it has one. */
export interface SeatRequest {
  jobId: string;
  orgId: string;
  priority: number;
  createdAt: number;
  /** The attempt the job is at: the next one begins only from it (0 while queued). */
  previousAttempt: number;
}

export function seatRequest(job: Pick<JobRow, "id" | "orgId" | "priority" | "createdAt">, previousAttempt: number): SeatRequest {
  return { jobId: job.id, orgId: job.orgId, priority: job.priority, createdAt: job.createdAt, previousAttempt };
}

const KEY = "seatRequest";

export function waitingForSeat(storage: DurableObjectStorage): Promise<SeatRequest | undefined> {
  return storage.get<SeatRequest>(KEY);
}

export async function clearWaiting(storage: DurableObjectStorage): Promise<void> {
  await storage.delete(KEY);
}

/**
 * Asks the pool for a seat; with one, `begin`s at once (giving the seat back if the job
 * will not run after all), else waits. True while the job is this runner's.
 */
export async function beginWhenSeated(
  env: Env,
  storage: DurableObjectStorage,
  request: SeatRequest,
  begin: (instance: string) => Promise<boolean>,
): Promise<boolean> {
  // Stored before the call: the pool may call `seated` before `acquire` returns.
  await storage.put(KEY, request);
  const instance = await processorPool(env).acquire({ jobId: request.jobId, orgId: request.orgId, priority: request.priority, createdAt: request.createdAt });
  // `seated` took the request meanwhile: the attempt began there.
  if (!(await storage.get(KEY))) return true;
  if (instance === null) {
    await storage.setAlarm(Date.now() + POOL.waitCheckMs);
    return true;
  }
  await storage.delete(KEY);
  if (await begin(instance)) return true;
  await processorPool(env).release(request.jobId);
  return false;
}

/**
 * The runner's alarm while its job waits for a seat: asks again, or gives up its place
 * when the job ended meanwhile. False when the job is not waiting.
 */
export async function whileWaiting(env: Env, storage: DurableObjectStorage, seat: (request: SeatRequest) => Promise<boolean>): Promise<boolean> {
  const request = await waitingForSeat(storage);
  if (!request) return false;
  const job = await findJob(database(env.DB), request.jobId);
  const stillWaiting = job && job.attempt === request.previousAttempt && (job.status === "queued" || job.status === "processing");
  if (!stillWaiting) {
    await storage.delete(KEY);
    await processorPool(env).release(request.jobId);
    return true;
  }
  await seat(request);
  return true;
}

// The runner's side of the processor pool (src/limits/processor-pool.ts): what a job waiting
// for a seat keeps, and whether it still waits. The runner makes the pool calls.
import type { JobRow } from "../db/schema.ts";

/** What a job waiting for a seat needs to begin once it has one. */
export interface SeatRequest {
  jobId: string;
  orgId: string;
  priority: number;
  createdAt: number;
  /** The attempt the job is at: the next one begins only from it (0 while queued). */
  previousAttempt: number;
  /** Attempts handed back so far (Attempt.handBacks); absent: 0. */
  handBacks?: number;
  /**
   * The attempt after previousAttempt began (D1 is at it) but a processor that will not run it
   * (503 draining, or 409 of another protocol version) refused its start: that same attempt
   * is started on the next seat. Not an attempt more, not a failed call...
   */
  refused?: true;
  /** ...until runner.refusedStartDeadlineMs after the first such refusal (`refusedSince`). */
  refusedSince?: number;
  /** A part of a fanned-out job beyond its first chunk: ranks below every job's first seat (PoolWaiter.extra). */
  extra?: true;
  /** A chunk of a fanned-out encode: a vCPU of its own (PoolWaiter.cpu). */
  cpu?: true;
}

export function seatRequest(job: Pick<JobRow, "id" | "orgId" | "priority" | "createdAt"> & Partial<Pick<JobRow, "part">>, previousAttempt: number, handBacks = 0): SeatRequest {
  return { jobId: job.id, orgId: job.orgId, priority: job.priority, createdAt: job.createdAt, previousAttempt, handBacks, ...partRank(job.part) };
}

/**
 * How a part of a fanned-out job waits for its seat (docs/fanout.md): its first chunk as the
 * job's own seat, every other part below any job's first seat; a chunk on a vCPU of its own.
 */
function partRank(part: JobRow["part"] | undefined): Pick<SeatRequest, "extra" | "cpu"> {
  if (part?.role === "video") return { ...(part.index > 0 ? { extra: true as const } : {}), cpu: true };
  return part?.role === "audio" ? { extra: true } : {};
}

/** The attempt the job is at while it waits: previousAttempt, or the one after it whose start was refused. */
export function waitingAt(request: SeatRequest): number {
  return request.previousAttempt + (request.refused ? 1 : 0);
}

/** Whether the job (its row now) still waits to begin the attempt after `request.previousAttempt` (to start it again, when refused). */
export function stillWaiting(request: SeatRequest, job: Pick<JobRow, "status" | "attempt"> | undefined): boolean {
  if (!job || job.attempt !== waitingAt(request)) return false;
  return request.refused ? job.status === "processing" : job.status === "queued" || job.status === "processing";
}

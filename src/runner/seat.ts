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
}

export function seatRequest(job: Pick<JobRow, "id" | "orgId" | "priority" | "createdAt">, previousAttempt: number): SeatRequest {
  return { jobId: job.id, orgId: job.orgId, priority: job.priority, createdAt: job.createdAt, previousAttempt };
}

/** Whether the job (its row now) still waits to begin the attempt after `request.previousAttempt`. */
export function stillWaiting(request: SeatRequest, job: Pick<JobRow, "status" | "attempt"> | undefined): boolean {
  return !!job && job.attempt === request.previousAttempt && (job.status === "queued" || job.status === "processing");
}

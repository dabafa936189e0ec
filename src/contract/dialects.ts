// The two dialects of one job model (docs/api.md, docs/sdk.md): the HTTP job nests results under
// `result` and says `queued`; the client library and the webhook payload put results at
// the root, say `pending`, and carry the error as its message.
import type { JobStoreView } from "./destinations.ts";
import type { HttpJob, JobErrorCode, JobStatus, JobTimings } from "./job.ts";
import { canonicalJobType, type JobType } from "./names.ts";
import type { JobResult } from "./registry.ts";

export type SdkJobStatus = "pending" | "processing" | "completed" | "failed" | "cancelled";

interface SdkJobBase<T extends JobType> {
  id: string;
  type: T;
  priority: number;
  progress: number | null;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  /** The failure's message when failed, otherwise null. */
  error: string | null;
  /** The failure's machine-readable code when failed, otherwise null. */
  errorCode: JobErrorCode | null;
  /** The metadata given at creation; `{}` when none was. */
  metadata: Record<string, string>;
  /** Where the job's time went, in milliseconds; each phase null until measured. */
  timings: JobTimings;
  /** Where the outputs are copied, for a job created with `store` (docs/destinations.md). */
  store?: JobStoreView;
}

type SdkJobOf<T extends JobType> =
  | (SdkJobBase<T> & { status: Exclude<SdkJobStatus, "completed"> })
  | (SdkJobBase<T> & { status: "completed" } & JobResult<T>);

/** A job in the client-library dialect, discriminated by `type` and then `status`. */
export type SdkJob = { [T in JobType]: SdkJobOf<T> }[JobType];

export function toSdkStatus(status: JobStatus): SdkJobStatus {
  return status === "queued" ? "pending" : status;
}

export function toSdkJob(job: HttpJob): SdkJob {
  const { type, status, result, error, ...rest } = job;
  return {
    ...rest,
    // A type this library does not know yet (a newer server) passes through as sent.
    type: canonicalJobType(type) ?? type,
    status: toSdkStatus(status),
    error: error?.message ?? null,
    errorCode: error?.code ?? null,
    ...(status === "completed" ? result : {}),
  } as SdkJob;
}

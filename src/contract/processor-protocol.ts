// The HTTP protocol between the job runner (Worker) and the processor (container or
// local Node process). One processor job is one attempt of one API job.
//
//   POST   /jobs                    {id, type, params, callback?}  → 202 ProcessorJobState (idempotent on id)
//   GET    /jobs/:id                → 200 ProcessorJobState | 404 when the processor does not know it
//   GET    /jobs/:id/outputs/:name  → the output's bytes, with Content-Type and Content-Length
//                                     (only for outputs the processor could not upload itself)
//   POST   /jobs/:id/cancel         → 200 ProcessorJobState; kills its processes
//   DELETE /jobs/:id                → 204; removes its files
//   GET    /status                  → 200 {version, tools, running}
//
// And the other way, pushed while an attempt runs (docs/architecture.md: events):
//
//   POST   <callback.url>           ProcessorJobState, `authorization: Bearer <callback.token>`
//     progress at most once per PROGRESS_REPORT_MS, a heartbeat every HEARTBEAT_MS while
//     nothing else was sent, and the final state (completed, failed, cancelled) at once.
//
//   PUT    <callback.outputs>/<name> the output's bytes, before the attempt reports `completed`;
//     the same token, Content-Length and Content-Type required → 201 stored in R2, 409 when
//     the runner no longer holds the attempt, 400/401/411/413/415 when the upload is wrong.
import type { JobError } from "./job.ts";
import type { JobParams, JobType } from "./registry.ts";
import type { StoredResult } from "./stored-result.ts";

export interface ProcessorJobRequest {
  id: string;
  type: JobType;
  params: JobParams;
  /**
   * When `params.url` is `upload:upl_…`: a short-lived signed link to the upload on the
   * Worker's own origin, fetched instead. Only the runner sets it (the processor's API is
   * behind its token), so it is fetched without the public-address rules but never
   * redirected: a user's URL can neither become one nor lead to one.
   */
  inputUrl?: string;
  /**
   * Where the processor pushes this attempt's events. The token is the attempt's own
   * (HMAC-SHA256 of the attempt id under PROCESSOR_TOKEN), so it is good for nothing else.
   * `outputs` is where each output is PUT (`<outputs>/<name>`) with the same token, straight
   * into R2. Without a callback the runner learns the state only by asking (GET /jobs/:id).
   */
  callback?: { url: string; token: string; outputs: string };
}

export interface ProcessorOutput {
  /** File name, unique within the job; result fields named `url` hold these names. */
  name: string;
  contentType: string;
  size: number;
}

/** Where an attempt's time went on the processor, in milliseconds; absent until measured. */
export interface ProcessorTimings {
  /** Downloading (or reading) the input. */
  fetchInputMs?: number;
  /** Running the job type's tools, up to its outputs on disk. */
  processMs?: number;
  /** Uploading the outputs to the callback's `outputs` (R2), all of them. */
  storeOutputMs?: number;
}

export type ProcessorJobState =
  | { id: string; state: "running"; progress: number }
  | { id: string; state: "completed"; progress: 100; result: StoredResult; outputs: ProcessorOutput[]; timings?: ProcessorTimings }
  | { id: string; state: "failed"; progress: number; error: JobError; timings?: ProcessorTimings }
  | { id: string; state: "cancelled"; progress: number };

/** The Worker's route for pushed events, under its public origin (locally) or the container's outbound host. */
export const PROCESSOR_EVENTS_PATH = "/internal/processor-events";

/** The Worker's route for uploaded outputs: `PUT <PROCESSOR_OUTPUTS_PATH>/<attempt id>/<name>`. */
export const PROCESSOR_OUTPUTS_PATH = "/internal/processor-outputs";

/**
 * An output's name as the processors make them (`image.webp`, `frame-03.png`): a plain
 * file name with one extension, so it can be neither a path nor a hidden file in R2 keys
 * (`outputs/<jobId>/<name>`) or download links.
 */
export function isOutputName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.[A-Za-z0-9]{1,10}$/.test(name);
}

/** The types an output may be stored with: what the job types produce. */
export const OUTPUT_CONTENT_TYPES: readonly string[] = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/avif",
  "video/mp4",
  "video/webm",
  "audio/mpeg",
  "application/pdf",
];

/** The largest output stored: R2's limit for one PUT (5 GiB less 5 MiB, developers.cloudflare.com/r2/platform/limits). */
export const MAX_OUTPUT_BYTES = 5 * 1024 ** 3 - 5 * 1024 ** 2;

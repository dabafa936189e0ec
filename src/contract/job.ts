// The job as the HTTP API shows it (docs/api.md, "The job"), its states and its failure codes.
import { z } from "zod";
import { jobMetadata } from "./metadata.ts";
import { HTTP_JOB_TYPES } from "./names.ts";

export const JOB_STATUSES = ["queued", "processing", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "cancelled"];

/** Codes a failed job carries in `error.code`. */
export const JOB_ERROR_CODES = [
  "input_unreachable",
  "input_too_large",
  "unsupported_media",
  "corrupt_media",
  "encrypted_media",
  "no_audio_stream",
  "no_video_stream",
  "duration_limit_exceeded",
  "invalid_input",
  "processing_timeout",
  "processing_interrupted",
  "invalid_result",
  "processing_failed",
] as const;
export type JobErrorCode = (typeof JOB_ERROR_CODES)[number];

export const jobError = z.object({ code: z.enum(JOB_ERROR_CODES), message: z.string() });
export type JobError = z.infer<typeof jobError>;

const phaseMs = z.int().min(0).nullable();

/**
 * Where a job's time went, in milliseconds; each phase null until measured (docs/api.md:
 * timings). The same object in both dialects and in the "job finished" log line.
 */
export const jobTimings = z.object({
  queuedMs: phaseMs.describe("Created until its first attempt started (waiting for a concurrency slot and a processor)."),
  fetchInputMs: phaseMs.describe("The processor's download of the input, in the last attempt."),
  processMs: phaseMs.describe("The processing itself (probe, tools, outputs written), in the last attempt."),
  storeOutputMs: phaseMs.describe("Outputs moved from the processor into storage."),
});
export type JobTimings = z.infer<typeof jobTimings>;

export const httpJob = z.object({
  id: z.string(),
  type: z.enum(HTTP_JOB_TYPES as [string, ...string[]]),
  status: z.enum(JOB_STATUSES),
  priority: z.int().min(1).max(10),
  /** 0–100 while processing, 100 when completed, null before it starts. */
  progress: z.int().min(0).max(100).nullable(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  /** The type's result fields (see each type's result schema); completed jobs only. */
  result: z.record(z.string(), z.unknown()).optional(),
  error: jobError.optional(),
  /** The metadata given at creation; `{}` when none was. */
  metadata: jobMetadata,
  timings: jobTimings,
});
export type HttpJob = z.infer<typeof httpJob>;

export const PRIORITY_DEFAULT = 5;

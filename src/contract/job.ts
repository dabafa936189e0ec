// The job as the HTTP API shows it (docs/api.md, "The job"), its states and its failure codes.
import { z } from "zod";
import { fanoutTimings } from "./fanout.ts";
import { jobStoreView } from "./destinations.ts";
import { jobMetadata } from "./metadata.ts";
import { HTTP_JOB_TYPES } from "./names.ts";

export const JOB_STATUSES = ["queued", "processing", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "cancelled"];

/**
 * The codes a failed job carries in `error.code`: when each is given, and whether a
 * processor reporting it gets another attempt (src/runner/attempt-end.ts decides).
 */
export const JOB_ERRORS = {
  input_unreachable: { retryable: false, when: "the input URL could not be downloaded" },
  input_too_large: { retryable: false, when: "the input has more bytes or pixels than the processor accepts" },
  unsupported_media: { retryable: false, when: "the input is not a format the job type reads" },
  corrupt_media: { retryable: false, when: "the input is damaged or truncated" },
  encrypted_media: { retryable: false, when: "the input is encrypted (a password-protected PDF)" },
  no_audio_stream: { retryable: false, when: "the job needs an audio stream the input lacks" },
  no_video_stream: { retryable: false, when: "the job needs a video stream the input lacks" },
  duration_limit_exceeded: { retryable: false, when: "the input is longer than the job type allows" },
  invalid_input: { retryable: false, when: "the options do not fit the input (a frame larger than the service produces)" },
  watermark_unavailable: { retryable: false, when: "the watermark image URL could not be downloaded (a refused address, an HTTP error, a time limit)" },
  watermark_invalid: { retryable: false, when: "the watermark image is not a PNG, JPEG, WebP or AVIF image the processor decodes, or is over its size or pixel limit" },
  processing_timeout: { retryable: false, when: "the processing ran past the processor's time limit" },
  resource_limit_exceeded: {
    retryable: false,
    when: "a tool was stopped by one of its limits: CPU time, memory (address space), the size of a file it writes; the input makes it work without end or needs more than a tool may use",
  },
  processing_interrupted: {
    retryable: true,
    when: "the processor was lost on every attempt, or the job was never started; a processor reports it when the service failed it (its uploaded input could not be read through the runner), and the job is then tried again while attempts are left",
  },
  invalid_result: { retryable: false, when: "the runner found that the processor's result does not fit the job type's schema" },
  processing_failed: { retryable: false, when: "anything else went wrong while processing" },
} as const satisfies Record<string, { retryable: boolean; when: string }>;

export type JobErrorCode = keyof typeof JOB_ERRORS;
export const JOB_ERROR_CODES = Object.keys(JOB_ERRORS) as [JobErrorCode, ...JobErrorCode[]];

export const jobError = z.object({ code: z.enum(JOB_ERROR_CODES), message: z.string() });
export type JobError = z.infer<typeof jobError>;

const phaseMs = z.int().min(0).nullable();

/**
 * Where a job's time went, in milliseconds; each phase null until measured (docs/api.md:
 * timings). One after the other they make up the whole of a completed job's time, created
 * to completed; the same object in both dialects and in the "job finished" log line.
 */
export const jobTimings = z.object({
  queuedMs: phaseMs.describe("Created until its first attempt started (waiting for a concurrency slot and a processor)."),
  retriesMs: phaseMs.describe("The first attempt's start until the last one's: earlier attempts that did not end the job, and their wait for a processor; 0 when the first attempt ended it."),
  startMs: phaseMs.describe("The last attempt's start sent to the processor until the processor took it and began the work, a container's cold start included."),
  fetchInputMs: phaseMs.describe("The processor's read of the input before its tool starts, in the last attempt: the whole download, or for a type that reads as it goes (video) only the first range."),
  processMs: phaseMs.describe("The processing itself (probe, tools, outputs written), in the last attempt."),
  storeOutputMs: phaseMs.describe("Outputs moved from the processor into storage."),
  reportMs: phaseMs.describe("The processor's end (tools done, outputs stored) until the job's end was recorded: the news of the end reaching the service."),
  fanout: fanoutTimings.optional().describe("Present when the encode ran in chunks on several seats (docs/fanout.md): processMs is then the stitch's."),
});
export type JobTimings = z.infer<typeof jobTimings>;

/** A stream that plays before its job completes: its master playlist's signed folder link. */
export const playableStream = z.object({
  url: z.string().describe("The master playlist (`…/master.m3u8`), signed for its folder as a result's `url` is: the playlists and segments it names resolve under it. It names only renditions whose files are stored, and grows as the others are; no file it names changes."),
  expiresAt: z.string().describe("When the link expires (one hour); read the job again for a fresh one."),
});

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
  /** Present when the job was created with `store`. */
  store: jobStoreView.optional(),
  /** When the job's stream became playable, before it completed (videoAdaptive); absent until then. */
  playableAt: z.string().optional().describe("When the job's stream became playable, before the job completed (videoAdaptive: docs/job-types.md). Absent until then, and on failed or cancelled jobs."),
  playable: playableStream.optional().describe("The stream a player can start from while the job still runs; present with `playableAt`, on processing and completed jobs."),
});
export type HttpJob = z.infer<typeof httpJob>;

export const PRIORITY_DEFAULT = 5;

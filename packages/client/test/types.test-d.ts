// Type-level tests, checked by `npm run typecheck` (tsconfig.json includes them): the
// client's plain types are the contract's zod types, both ways; jobs are discriminated by
// type then status, params are typed per type, and wrong accesses fail. Nothing here runs.
import {
  MediaJobsClient,
  verifyWebhook,
  type ApiError,
  type ApiErrorCode,
  type CompletedJob,
  type EnqueueJobInput,
  type JobErrorCode,
  type JobOf,
  type JobParamsInput,
  type JobResult,
  type JobType,
  type SdkJob,
  type SdkJobStatus,
} from "../src/index.ts";
import type { SdkJob as ContractSdkJob, SdkJobStatus as ContractSdkJobStatus } from "../../../src/contract/dialects.ts";
import type { JobErrorCode as ContractJobErrorCode } from "../../../src/contract/job.ts";
import type { JobParamsInput as ContractJobParamsInput, JobResult as ContractJobResult } from "../../../src/contract/registry.ts";
import type { ApiErrorCode as ServiceApiErrorCode } from "../../../src/lib/errors.ts";

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}
/** Each assignable to the other: what the contract says, the client's published types say. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export function inStepWithTheContract(): void {
  assertType<Same<SdkJob, ContractSdkJob>>();
  assertType<Same<SdkJobStatus, ContractSdkJobStatus>>();
  assertType<Same<JobErrorCode, ContractJobErrorCode>>();
  assertType<{ [T in JobType]: Same<JobParamsInput<T>, ContractJobParamsInput<T>> }[JobType]>();
  assertType<{ [T in JobType]: Same<JobResult<T>, ContractJobResult<T>> }[JobType]>();
  assertType<{ [T in JobType]: Same<JobOf<T>, Extract<ContractSdkJob, { type: T }>> }[JobType]>();
  // Every code the service sends, plus the two the client makes up for answers that are not the service's.
  assertType<Same<ApiErrorCode, ServiceApiErrorCode | "invalid_response" | `http_${number}`>>();
  assertType<Same<ApiError["code"], ApiErrorCode>>();
}

export async function narrowing(client: MediaJobsClient): Promise<void> {
  const job = await client.getJob("job_1");

  if (job.type === "compressImage" && job.status === "completed") {
    const numbers: number[] = [job.width, job.height, job.compressionRatio, job.size, job.source.width];
    const format: "jpg" | "png" | "webp" | "avif" = job.format;
    const url: string = job.url;
    void [numbers, format, url];
    // @ts-expect-error a compressed image has no duration
    void job.duration;
  }

  if (job.type === "compressImage") {
    // @ts-expect-error width exists only once the job is completed
    void job.width;
    if (job.status === "failed") {
      const message: string | null = job.error;
      void message;
      // @ts-expect-error no result fields on a failed job
      void job.url;
    }
  }

  if (job.type === "compressPdf" && job.status === "completed") {
    const pages: number = job.pages;
    void pages;
    // @ts-expect-error a PDF result has no width
    void job.width;
  }

  if (job.type === "videoExtraction" && job.status === "completed") {
    const bitrate: string | undefined = job.audio?.bitrate;
    const first: number | undefined = job.frames[0]?.timestamp;
    const hasAudio: boolean = job.source.hasAudio;
    void [bitrate, first, hasAudio];
  }

  if (job.type === "videoStoryboard" && job.status === "completed") {
    const vtt: string = job.url;
    const sprite: { url: string; width: number; format: "jpg" | "webp" } = job.sprite;
    const tile: { columns: number; count: number; interval: number } = job.tile;
    void [vtt, sprite, tile];
  }

  if (job.type === "videoPreview" && job.status === "completed") {
    const format: "webp" | "gif" | "mp4" = job.format;
    const frames: number = job.frames;
    const start: number = job.start;
    void [format, frames, start, job.frameRate, job.source.hasAudio];
  }

  if (job.type === "videoAdaptive" && job.status === "completed") {
    const master: string = job.url;
    const bandwidth: number | undefined = job.renditions[0]?.bandwidth;
    const mpd: string | undefined = job.dash?.url;
    const download: number | undefined = job.mp4?.size;
    void [master, bandwidth, mpd, download];
  }

  if (job.type === "compressVideo" && job.status === "completed") {
    const codec: "h264" | "h265" | "vp9" | "av1" = job.codec;
    const bitrate: string = job.bitrate;
    void [codec, bitrate];
  }

  // @ts-expect-error not a job type of the SDK dialect
  if (job.type === "compress-image") void job;
  // @ts-expect-error HTTP says queued, the SDK says pending
  if (job.status === "queued") void job;
  // @ts-expect-error not a failure code of the contract
  if (job.errorCode === "exploded") void job;
}

export async function enqueueTyping(client: MediaJobsClient): Promise<void> {
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", quality: 80, format: "avif" } });
  await client.enqueueJob({ type: "videoThumbnail", params: { url: "https://e.com/a.mp4", timestamp: "auto" } });
  await client.enqueueJob({ type: "videoExtraction", params: { url: "https://e.com/a.mp4", audio: false, frames: { mode: "count", count: 5 } } });
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", maxWidth: 256, maxHeight: 256, fit: "cover", position: "attention" } });
  await client.enqueueJob({ type: "videoThumbnail", params: { url: "https://e.com/a.mp4", width: 400, height: 400, fit: "contain", background: "#000000" } });
  await client.enqueueJob({ type: "videoExtraction", params: { url: "https://e.com/a.mp4", frames: { mode: "count", count: 5, width: 64, height: 64, position: "entropy" } } });
  await client.enqueueJob({ type: "videoStoryboard", params: { url: "https://e.com/a.mp4", interval: 5, width: 160, format: "webp" } });
  // @ts-expect-error a storyboard's sprite is JPEG or WebP
  await client.enqueueJob({ type: "videoStoryboard", params: { url: "https://e.com/a.mp4", format: "png" } });
  await client.enqueueJob({ type: "videoPreview", params: { url: "https://e.com/a.mp4", format: "gif", start: 12, duration: 4, width: 480, fps: 12, loop: false } });
  // @ts-expect-error a preview is WebP, GIF or MP4
  await client.enqueueJob({ type: "videoPreview", params: { url: "https://e.com/a.mp4", format: "apng" } });
  await client.enqueueJob({ type: "videoAdaptive", params: { url: "https://e.com/a.mp4", renditions: [{ height: 360 }, { height: 720, bitrate: "2M" }], dash: true, mp4: true } });
  // @ts-expect-error videoAdaptive encodes H.264 only
  await client.enqueueJob({ type: "videoAdaptive", params: { url: "https://e.com/a.mp4", codec: "vp9" } });
  // @ts-expect-error position is a side, a corner, center, attention or entropy
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", maxWidth: 256, maxHeight: 256, fit: "cover", position: "face" } });
  // @ts-expect-error fit is cover, contain, inside or fill (sharp's names), not Cloudinary's crop modes
  await client.enqueueJob({ type: "videoThumbnail", params: { url: "https://e.com/a.mp4", width: 400, height: 400, fit: "pad" } });
  await client.enqueueJob({ type: "compressVideo", params: { url: "https://e.com/a.mp4", watermark: { text: "© acme", position: "bottom-right", opacity: 0.6 } } });
  await client.enqueueJob({ type: "videoThumbnail", params: { url: "https://e.com/a.mp4", watermark: { url: "https://e.com/logo.png", position: "top-left", size: 0.15 } } });
  await client.enqueueJob({ type: "videoExtraction", params: { url: "https://e.com/a.mp4", frames: { mode: "count", count: 5, watermark: { text: "© acme", margin: 0 } } } });
  // @ts-expect-error a watermark's position is a side, a corner or center, not a smart crop
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", watermark: { text: "© acme", position: "attention" } } });
  // @ts-expect-error extractAudio has no picture to watermark
  await client.enqueueJob({ type: "extractAudio", params: { url: "https://e.com/a.mp4", watermark: { text: "© acme" } } });

  // @ts-expect-error compressImage's quality is 1–100, not a preset
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", quality: "high" } });
  // @ts-expect-error codec is a compressVideo param, not a compressImage one
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", codec: "h264" } });
  // @ts-expect-error url is required
  await client.enqueueJob({ type: "extractAudio", params: { quality: "high" } });
  // @ts-expect-error the HTTP spelling is not an SDK type
  await client.enqueueJob({ type: "compress-image", params: { url: "https://e.com/a.jpg" } });

  const input: EnqueueJobInput = { type: "compressPdf", params: { url: "https://e.com/a.pdf", quality: "low" } };
  await client.enqueueJob(input);

  const audio = await client.enqueueAndWait({ type: "extractAudio", params: { url: "https://e.com/a.mp4" } });
  assertType<Equal<typeof audio, JobOf<"extractAudio">>>();
  assertType<Equal<typeof audio.type, "extractAudio">>();
  if (audio.status === "completed") {
    assertType<Equal<typeof audio, CompletedJob<"extractAudio">>>();
    const bitrate: string = audio.bitrate;
    void bitrate;
  }
}

export async function listingAndWebhooks(client: MediaJobsClient, raw: string, headers: Headers): Promise<void> {
  for await (const job of client.listJobs({ status: "pending", limit: 10 })) {
    assertType<Equal<typeof job, SdkJob>>();
  }
  await client.listJobs().page({ status: "queued", cursor: "c" });
  // @ts-expect-error not a status
  client.listJobs({ status: "done" });

  const payload = await verifyWebhook(raw, headers, "whsec_x");
  assertType<Equal<typeof payload, SdkJob>>();
  await verifyWebhook(raw, { "x-service-timestamp": "1", "x-service-signature": ["sha256=a", "sha256=b"] }, ["a", "b"]);
}

export function errorCodes(error: ApiError): string {
  // A switch over the codes is checked: a typo does not compile, and what is left after
  // the service's codes and invalid_response is http_<status>.
  // @ts-expect-error not an error code of the service
  if (error.code === "rate_limited") return "never";
  const code: ApiErrorCode = error.code;
  switch (code) {
    case "invalid_input":
    case "unauthorized":
    case "forbidden":
    case "not_found":
    case "idempotency_key_in_use":
    case "idempotency_key_reused":
    case "payload_too_large":
    case "unsupported_media_type":
    case "rate_limit_exceeded":
    case "upload_offset_mismatch":
    case "upload_expired":
    case "tus_version_unsupported":
    case "upload_locked":
    case "workflow_not_ended":
    case "checksum_mismatch":
    case "internal_error":
    case "invalid_response":
      return code;
    default: {
      assertType<Equal<typeof code, `http_${number}`>>();
      return code;
    }
  }
}

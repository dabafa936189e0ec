// Type-level tests, checked by `tsc --noEmit -p .` (and by type-check.test.ts): jobs are
// discriminated by type then status, params are typed per type, and wrong accesses fail.
// Nothing here runs.
import {
  ApiError,
  MediaJobsClient,
  type ApiErrorCode,
  verifyWebhook,
  type CompletedJob,
  type EnqueueJobInput,
  type JobOf,
  type SdkJob,
} from "../../src/client/index.ts";

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}

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

  if (job.type === "compressVideo" && job.status === "completed") {
    const codec: "h264" | "h265" | "vp9" = job.codec;
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
  // The service's codes come from the one table in the contract; a typo does not compile.
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
    case "rate_limit_exceeded":
    case "internal_error":
    case "invalid_response":
      return code;
    default: {
      assertType<Equal<typeof code, `http_${number}`>>();
      return code;
    }
  }
}

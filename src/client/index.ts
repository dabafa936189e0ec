// media-jobs/client: the TypeScript client library (docs/sdk.md). Zero runtime
// dependencies; fetch and WebCrypto only, so it runs on Node 18+, Deno, Bun, browsers
// and Workers.
export { DEFAULT_BASE_URL, MediaJobsClient, type CallOptions, type EnqueueOptions } from "./client.ts";
export { ApiError, ConnectionError, MediaJobsError, TimeoutError, WebhookVerificationError, type ApiErrorCode, type ApiErrorInit } from "./errors.ts";
export { JobList } from "./list.ts";
export type {
  CancelJobResult,
  ClientOptions,
  CompletedJob,
  EnqueuedJob,
  EnqueueJobInput,
  FetchLike,
  JobErrorCode,
  JobOf,
  JobPage,
  JobParamsInput,
  JobResult,
  JobType,
  ListJobsOptions,
  ListStatus,
  PageOptions,
  SdkJob,
  SdkJobStatus,
  WaitOptions,
} from "./types.ts";
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhook,
  type RawBody,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookPayload,
  type WebhookSignatureHeaders,
} from "./webhooks.ts";

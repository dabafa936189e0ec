// @media-jobs/client (packages/client, docs/sdk.md): the TypeScript client of the API.
// Zero runtime dependencies; fetch and WebCrypto only, so it runs on Node 18+, Deno, Bun,
// browsers and Workers.
export type { CallOptions } from "./base.ts";
export { MediaJobsClient, type EnqueueOptions } from "./client.ts";
export { DEFAULT_BASE_URL } from "./config.ts";
export { ApiError, ConnectionError, MediaJobsError, TimeoutError, WebhookVerificationError, type ApiErrorInit } from "./errors.ts";
export { JobList } from "./list.ts";
export { toSdkWorkflow } from "./workflows.ts";
export type { CreatedWorkflow, CreateTemplateInput, CreateWorkflowInput, HttpWorkflow, Page, PageQuery, Template, UpdateTemplateInput, Workflow, WorkflowStep } from "./workflows.ts";
export { TIMINGS } from "./timings.ts";
export { RESUMABLE_UPLOADS } from "./uploads.ts";
export type { CreatedUpload, CreateUploadInput, CreateUploadTokenInput, Upload, UploadFileOptions, UploadSource, UploadToken } from "./uploads.ts";
export type {
  CancelJobResult,
  ClientOptions,
  EnqueuedJob,
  EnqueueJobInput,
  FetchLike,
  JobEvent,
  JobPage,
  ListJobsOptions,
  ListStatus,
  PageOptions,
  WaitOptions,
} from "./calls.ts";
export type {
  ApiErrorCode,
  CompletedJob,
  CreateDestinationInput,
  Destination,
  DestinationCheck,
  JobErrorCode,
  JobOf,
  JobParamsInput,
  JobResult,
  JobStore,
  JobType,
  SdkJob,
  SdkJobStatus,
  Usage,
  WebhookDelivery,
} from "./types.ts";
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  isJobPlayable,
  verifyWebhook,
  type JobPlayableWebhook,
  type RawBody,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookPayload,
  type WebhookSignatureHeaders,
} from "./webhooks.ts";

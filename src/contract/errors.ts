// The API's error codes and the HTTP status each one answers with: one table, read by the
// server's AppError (which takes its status from here), the OpenAPI document and the
// client library's ApiError. Imports nothing, so the shipped client can load it.

/** Every public error code, its HTTP status and when it is answered. */
export const API_ERRORS = {
  invalid_input: { status: 400, when: "malformed JSON, an unknown or wrong field, a bad URL or an out-of-range value; `details` lists each problem with its field path" },
  unauthorized: { status: 401, when: "a missing, malformed, unknown or revoked API key" },
  forbidden: { status: 403, when: "a download link that is tampered with, malformed or expired; a browser upload token that created its maxUploads already" },
  not_found: { status: 404, when: "no such job, workflow or template for this organization and mode, or no such route" },
  idempotency_key_in_use: { status: 409, when: "a request with the same Idempotency-Key is still running" },
  upload_offset_mismatch: { status: 409, when: "a tus PATCH whose Upload-Offset is not the offset the upload has reached; HEAD it and go on from there" },
  workflow_not_ended: { status: 409, when: "a DELETE of a workflow with steps still queued or processing; cancel it first" },
  upload_expired: { status: 410, when: "a tus upload past its Upload-Expires (or terminated): its bytes are gone; create a new one" },
  tus_version_unsupported: { status: 412, when: "a tus request without Tus-Resumable: 1.0.0" },
  payload_too_large: { status: 413, when: "a request body over 64 KiB, or a tus upload larger than the plan or its upload token allows" },
  unsupported_media_type: { status: 415, when: "a create request whose Content-Type is not application/json" },
  idempotency_key_reused: { status: 422, when: "the Idempotency-Key was used with another body in the last 24 h" },
  upload_locked: { status: 423, when: "another PATCH is writing this tus upload; try again when it ends" },
  rate_limit_exceeded: { status: 429, when: "the plan's hourly job or upload quota, its unfinished uploads at once, or the read rate, is used up; see Retry-After" },
  checksum_mismatch: { status: 460, when: "a tus PATCH whose Upload-Checksum does not match its body (tus checksum extension); its bytes were not kept, send them again" },
  internal_error: { status: 500, when: "anything unexpected; logged with the request id" },
} as const satisfies Record<string, { status: number; when: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;
export type ApiErrorStatus = (typeof API_ERRORS)[ApiErrorCode]["status"];

export const API_ERROR_CODES = Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]];

// One error type for the API: public `code` and `message` (and `details`), an HTTP
// status, and an internal `cause` that is logged but never sent.
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ApiErrorCode =
  | "invalid_input"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "idempotency_key_in_use"
  | "idempotency_key_reused"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limit_exceeded"
  | "internal_error";

export class AppError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ApiErrorCode;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: ApiErrorCode,
    message: string,
    options: { details?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const invalidInput = (message: string, details?: unknown) => new AppError(400, "invalid_input", message, { details });
export const notFound = (what: string) => new AppError(404, "not_found", `no ${what} with that id`);
export const unauthorized = (message: string) => new AppError(401, "unauthorized", message);

export function errorBody(code: string, message: string, details?: unknown, requestId?: string) {
  return { error: { code, message, ...(details === undefined ? {} : { details }), ...(requestId ? { requestId } : {}) } };
}

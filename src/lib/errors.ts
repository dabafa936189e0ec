// One error type for the API: public `code` and `message` (and `details`), an HTTP
// status that the code decides (contract/errors.ts), and an internal `cause` that is
// logged but never sent.
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { API_ERRORS, type ApiErrorCode } from "../contract/errors.ts";

export type { ApiErrorCode } from "../contract/errors.ts";

export class AppError extends Error {
  /** Hono's type, which names no unofficial status: tus's 460 (checksum_mismatch) is one. */
  readonly status: ContentfulStatusCode;
  readonly code: ApiErrorCode;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(code: ApiErrorCode, message: string, options: { details?: unknown; cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.status = API_ERRORS[code].status as ContentfulStatusCode;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const invalidInput = (message: string, details?: unknown) => new AppError("invalid_input", message, { details });
export const notFound = (what: string) => new AppError("not_found", `no ${what} with that id`);
export const unauthorized = (message: string) => new AppError("unauthorized", message);

export function errorBody(code: ApiErrorCode, message: string, details?: unknown, requestId?: string) {
  return { error: { code, message, ...(details === undefined ? {} : { details }), ...(requestId ? { requestId } : {}) } };
}

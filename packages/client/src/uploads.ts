// Uploads (docs/api.md, "Direct uploads" and "Resumable uploads"): a file up to one chunk is
// created and PUT to its signed target in one request; a larger one goes over tus 1.0 in
// chunked PATCHes that resume from the service's offset after any failure. Either way the
// result is an `upl_…` a job takes as `upload:<id>`.
import { ClientBase, type CallOptions, type ClientContext } from "./base.ts";
import type { components } from "./contract.gen.ts";
import { MediaJobsError } from "./errors.ts";
import type { FetchLike } from "./calls.ts";
import { backoff } from "./http.ts";

/** An upload: `pending` until its bytes arrive, then `uploaded`. */
export type Upload = components["schemas"]["Upload"];
/** A new upload with the `target` to PUT its bytes to. */
export type CreatedUpload = components["schemas"]["CreatedUpload"];
/** What `createUpload` needs: the name, media type and exact size in bytes. */
export type CreateUploadInput = components["schemas"]["CreateUploadRequest"];

/** A body fetch accepts (BodyInit, which not every lib setting names). */
type UploadBody = NonNullable<RequestInit["body"]>;

/** What `uploadFile` sends: a Blob (or File), bytes, or a stream (which needs `size`). */
export type UploadSource = Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array>;

/** A browser upload token (`createUploadToken`): hand `token` and `endpoint` to a page's tus client. */
export type UploadToken = components["schemas"]["UploadToken"];

/** What a browser token may do: `maxUploads` (default 1) of at most `maxBytes`, or finish the upload `uploadId`. */
export type CreateUploadTokenInput = components["schemas"]["CreateUploadTokenRequest"];

/** How `uploadFile` sends a file larger than one chunk. */
export const RESUMABLE_UPLOADS = {
  /**
   * Files larger than this go resumable, in PATCHes of this size (each held in memory while
   * sent). A multiple of the service's 5 MiB parts: each PATCH then ends on a part and leaves
   * no tail for the next one to rewrite.
   */
  chunkBytes: 10 * 1024 * 1024,
  /** Failed PATCHes in a row (no byte kept in between) before uploadFile gives up; the upload stays resumable with `uploadUrl`. */
  maxFailures: 8,
} as const;

/**
 * Options of `uploadFile`; each defaults from the source where it can (a File's name, a
 * Blob's type and size, the bytes' length).
 *
 * @example
 * ```ts
 * await client.uploadFile(stream, { filename: "talk.mp4", contentType: "video/mp4", size: 52_428_800 });
 * ```
 */
export interface UploadFileOptions {
  filename?: string;
  contentType?: string;
  /** Exact size in bytes; required for a stream. */
  size?: number;
  signal?: AbortSignal;
  /** Bytes the service has kept so far, after each chunk (and once at the end of a one-request upload). */
  onProgress?: (sent: number, total: number) => void;
  /** Chunk size of a resumable upload, and the size above which one is used; default RESUMABLE_UPLOADS.chunkBytes. */
  chunkSize?: number;
  /**
   * Go on with a resumable upload started earlier (another process, before a crash): the URL
   * `onUploadUrl` reported. The same bytes must be passed; sending resumes at the service's offset.
   */
  uploadUrl?: string;
  /** Called with a resumable upload's URL as soon as it exists: keep it to resume with `uploadUrl`. */
  onUploadUrl?: (url: string) => void;
}

/** Direct uploads; part of {@link MediaJobsClient}. */
export abstract class UploadMethods extends ClientBase {
  /**
   * Starts a direct upload; PUT the bytes to `target.url` with `target.headers` (or use
   * {@link UploadMethods.uploadFile}, which does both).
   *
   * @example
   * ```ts
   * const upload = await client.createUpload({ filename: "photo.jpg", contentType: "image/jpeg", size: 1038837 });
   * ```
   */
  async createUpload(input: CreateUploadInput, options: CallOptions = {}): Promise<CreatedUpload> {
    return (await this.context.request<CreatedUpload>({ method: "POST", path: "/uploads", body: input, signal: options.signal })).data;
  }

  /**
   * An upload: `pending` until its bytes arrive, then `uploaded`.
   *
   * @example
   * ```ts
   * const { status } = await client.getUpload("upl_…");
   * ```
   */
  async getUpload(uploadId: string, options: CallOptions = {}): Promise<Upload> {
    if (typeof uploadId !== "string" || uploadId === "") {
      throw new MediaJobsError(`uploadId must be a non-empty string, got ${JSON.stringify(uploadId)}`);
    }
    const path = `/uploads/${encodeURIComponent(uploadId)}`;
    return (await this.context.request<Upload>({ method: "GET", path, signal: options.signal })).data;
  }

  /**
   * Uploads a Blob/File, bytes or a stream (with `size`) and returns the upload; use
   * `upload:${upload.id}` as a job's input.
   *
   * @example
   * ```ts
   * const upload = await client.uploadFile(bytes, { filename: "photo.jpg", contentType: "image/jpeg" });
   * await client.enqueueJob({ type: "compressImage", params: { url: `upload:${upload.id}` } });
   * ```
   */
  async uploadFile(source: UploadSource, options: UploadFileOptions = {}): Promise<Upload> {
    const { input, body } = describeSource(source, options);
    const chunkSize = options.chunkSize ?? RESUMABLE_UPLOADS.chunkBytes;
    if (!(Number.isInteger(chunkSize) && chunkSize > 0)) throw new MediaJobsError(`uploadFile: chunkSize must be a positive whole number of bytes, got ${chunkSize}`);
    if (input.size > chunkSize || options.uploadUrl) {
      const url = await sendResumable(this.context, input, chunkedSource(body, input.size), chunkSize, options);
      return this.getUpload(url.slice(url.lastIndexOf("/") + 1), { signal: options.signal });
    }
    const created = await this.createUpload(input, { signal: options.signal });
    await putContent(this.context.fetch, created, body, options.signal);
    options.onProgress?.(input.size, input.size);
    return this.getUpload(created.id, { signal: options.signal });
  }

  /**
   * A short-lived token for a browser to upload with (tus, docs/api.md: "Resumable uploads
   * from a browser"): the API key never leaves your backend.
   *
   * @example
   * ```ts
   * const { token, endpoint } = await client.createUploadToken({ maxUploads: 1, maxBytes: 200 * 1024 * 1024 });
   * // hand both to the page: new tus.Upload(file, { endpoint, headers: { Authorization: `Bearer ${token}` } })
   * // later, to finish an upload whose token expired: createUploadToken({ uploadId: "upl_…" })
   * ```
   */
  async createUploadToken(input: CreateUploadTokenInput = {}, options: CallOptions = {}): Promise<UploadToken> {
    return (await this.context.request<UploadToken>({ method: "POST", path: "/uploads/tus/tokens", body: input, signal: options.signal })).data;
  }
}

/** The bytes of a resumable upload, read a chunk at a time (a stream: only forward, the current chunk kept for retries). */
interface ChunkedSource {
  read(start: number, end: number): Promise<Blob | Uint8Array>;
}

function chunkedSource(body: UploadBody, size: number): ChunkedSource {
  if (typeof Blob !== "undefined" && body instanceof Blob) return { read: async (start, end) => body.slice(start, end) };
  if (body instanceof Uint8Array) return { read: async (start, end) => body.subarray(start, end) };
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let window = new Uint8Array(0);
  let windowStart = 0;
  return {
    async read(start, end) {
      if (start < windowStart) throw new MediaJobsError(`uploadFile: the service asks for bytes from ${start}, but a stream cannot go back before ${windowStart}; upload it again`);
      // What the service kept is dropped; the chunk being sent stays until it is kept.
      window = window.subarray(start - windowStart);
      windowStart = start;
      while (windowStart + window.byteLength < Math.min(end, size)) {
        const { done, value } = await reader.read();
        if (done) throw new MediaJobsError(`uploadFile: the stream ended at ${windowStart + window.byteLength} bytes, before the declared size ${size}`);
        const grown = new Uint8Array(window.byteLength + value.byteLength);
        grown.set(window);
        grown.set(value, window.byteLength);
        window = grown;
      }
      return window.subarray(0, end - start);
    },
  };
}

const TUS_HEADERS = { "Tus-Resumable": "1.0.0" };

/** base64 of UTF-8, as Upload-Metadata wants its values. */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Creates (or resumes) a tus upload and PATCHes it a chunk at a time. After any failure (no
 * answer, 5xx, 409 offset mismatch, 423 locked, 429) it waits with backoff, asks the service
 * for its offset (HEAD) and goes on from there; another answer fails at once. Returns the
 * upload's URL once every byte is kept.
 */
async function sendResumable(context: ClientContext, input: CreateUploadInput, source: ChunkedSource, chunkSize: number, options: UploadFileOptions): Promise<string> {
  const { fetch } = context;
  const { signal } = options;
  const auth = { Authorization: `Bearer ${context.apiKey}` };
  const call = async (url: string, init: RequestInit & { duplex?: "half" }) => {
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forward, { once: true });
    try {
      return await fetch(url, { ...init, headers: { ...TUS_HEADERS, ...auth, ...(init.headers as Record<string, string>) }, signal: controller.signal });
    } finally {
      signal?.removeEventListener("abort", forward);
    }
  };
  let url = options.uploadUrl;
  if (!url) {
    const created = await call(`${context.baseUrl}/uploads/tus`, {
      method: "POST",
      headers: { "Upload-Length": String(input.size), "Upload-Metadata": `filename ${base64(input.filename)},filetype ${base64(input.contentType)}` },
    });
    if (created.status !== 201) throw await failure(created, "the creation of a resumable upload");
    url = new URL(created.headers.get("location") ?? "", context.baseUrl).toString();
    options.onUploadUrl?.(url);
  }
  let offset = await headOffset(call, url);
  let failures = 0;
  options.onProgress?.(offset, input.size);
  while (offset < input.size) {
    signal?.throwIfAborted();
    const end = Math.min(input.size, offset + chunkSize);
    let response: Response | undefined;
    try {
      const body = await source.read(offset, end);
      response = await call(url, {
        method: "PATCH",
        headers: { "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" },
        body: body as UploadBody,
      });
    } catch (error) {
      if (signal?.aborted || error instanceof MediaJobsError) throw error;
    }
    if (response?.status === 204) {
      offset = Number(response.headers.get("upload-offset"));
      failures = 0;
      options.onProgress?.(offset, input.size);
      continue;
    }
    if (response && ![409, 423, 429].includes(response.status) && response.status < 500) throw await failure(response, `a PATCH at offset ${offset}`);
    await response?.text().catch(() => undefined);
    if (++failures >= RESUMABLE_UPLOADS.maxFailures) {
      throw new MediaJobsError(`uploadFile: ${failures} PATCHes in a row failed (last: ${response ? `HTTP ${response.status}` : "no answer"}); resume later with { uploadUrl: "${url}" }`);
    }
    const retryAfter = Number(response?.headers.get("retry-after"));
    await context.sleep(retryAfter > 0 && retryAfter <= 60 ? retryAfter * 1000 : backoff(failures - 1, context.random), signal);
    offset = await headOffset(call, url).catch(() => offset);
  }
  return url;
}

async function headOffset(call: (url: string, init: RequestInit) => Promise<Response>, url: string): Promise<number> {
  const response = await call(url, { method: "HEAD" });
  const offset = Number(response.headers.get("upload-offset"));
  if (response.status !== 200 || !Number.isInteger(offset)) throw await failure(response, "asking the resumable upload's offset (HEAD)");
  return offset;
}

async function failure(response: Response, what: string): Promise<MediaJobsError> {
  const text = await response.text().catch(() => "");
  return new MediaJobsError(`uploadFile: ${what} failed with HTTP ${response.status}${text ? `: ${text.slice(0, 500)}` : ""}`);
}

/** The upload's fields and the body to PUT, from the source and the options. */
function describeSource(
  source: UploadSource,
  options: UploadFileOptions,
): { input: CreateUploadInput; body: UploadBody } {
  let size = options.size;
  let filename = options.filename;
  let contentType = options.contentType;
  let body: UploadBody;
  if (typeof Blob !== "undefined" && source instanceof Blob) {
    size ??= source.size;
    contentType ??= source.type || undefined;
    filename ??= "name" in source && typeof source.name === "string" ? source.name : undefined;
    body = source;
  } else if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    size ??= source.byteLength;
    body = (source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength)) as Uint8Array<ArrayBuffer>;
  } else if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
    if (size === undefined) throw new MediaJobsError("uploadFile: a stream needs { size } (its exact length in bytes)");
    body = source;
  } else {
    throw new MediaJobsError("uploadFile: source must be a Blob, a File, an ArrayBuffer, a typed array or a ReadableStream");
  }
  if (!filename) throw new MediaJobsError("uploadFile: pass { filename } (the source has no name)");
  if (!contentType) throw new MediaJobsError("uploadFile: pass { contentType } (the source has no type), e.g. image/jpeg");
  return { input: { filename, contentType: contentType as CreateUploadInput["contentType"], size: size! }, body };
}

/** PUTs the bytes to the upload's target with exactly its headers. */
async function putContent(fetch: FetchLike, created: CreatedUpload, body: UploadBody, signal?: AbortSignal): Promise<void> {
  const init: RequestInit & { duplex?: "half" } = { method: created.target.method, headers: created.target.headers, body, signal };
  // Node's fetch sends a stream body only half-duplex, and says so.
  if (typeof ReadableStream !== "undefined" && body instanceof ReadableStream) init.duplex = "half";
  const response = await fetch(created.target.url, init);
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw new MediaJobsError(`uploadFile: the PUT of upload ${created.id} failed with HTTP ${response.status}: ${text.slice(0, 500)}`);
  }
}

// Direct uploads (docs/api.md, "Direct uploads"): create the upload, PUT the bytes to its
// signed target with exactly the headers it names (no API key), use `upload:<id>` as input.
import { ClientBase, type CallOptions } from "./base.ts";
import type { components } from "./contract.gen.ts";
import { MediaJobsError } from "./errors.ts";
import type { FetchLike } from "./calls.ts";

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
    const created = await this.createUpload(input, { signal: options.signal });
    await putContent(this.context.fetch, created, body, options.signal);
    return this.getUpload(created.id, { signal: options.signal });
  }
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

// Direct uploads (docs/api.md, "Direct uploads"): create the upload, PUT the bytes to its
// signed target with exactly the headers it names (no API key), use `upload:<id>` as input.
import type { components } from "./contract.gen.ts";
import { MediaJobsError } from "./errors.ts";
import type { FetchLike } from "./types.ts";

/** An upload: `pending` until its bytes arrive, then `uploaded`. */
export type Upload = components["schemas"]["Upload"];
/** A new upload with the `target` to PUT its bytes to. */
export type CreatedUpload = components["schemas"]["CreatedUpload"];
/** What `createUpload` needs: the name, media type and exact size in bytes. */
export type CreateUploadInput = components["schemas"]["CreateUploadRequest"];

/** What `uploadFile` sends: a Blob (or File), bytes, or a stream (which needs `size`). */
/** A body fetch accepts (BodyInit, which not every lib setting names). */
type UploadBody = NonNullable<RequestInit["body"]>;

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

/** The upload's fields and the body to PUT, from the source and the options. */
export function describeSource(
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
export async function putContent(fetch: FetchLike, created: CreatedUpload, body: UploadBody, signal?: AbortSignal): Promise<void> {
  const init: RequestInit & { duplex?: "half" } = { method: created.target.method, headers: created.target.headers, body, signal };
  // Node's fetch sends a stream body only half-duplex, and says so.
  if (typeof ReadableStream !== "undefined" && body instanceof ReadableStream) init.duplex = "half";
  const response = await fetch(created.target.url, init);
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw new MediaJobsError(`uploadFile: the PUT of upload ${created.id} failed with HTTP ${response.status}: ${text.slice(0, 500)}`);
  }
}

// Copies one R2 object to a destination bucket, streamed: one PUT up to the multipart
// threshold, else a multipart upload whose parts are ranged R2 reads. Nothing is held in
// memory beyond the streams' buffers. A workflow calls this the same way a job's store does.
import type { S3Bucket } from "./s3.ts";

export interface CopySizes {
  multipartThresholdBytes: number;
  partBytes: number;
}

export interface Copied {
  etag: string | null;
  size: number;
  /** Parts sent; 0 for a single PUT. */
  parts: number;
}

/** Throws S3Failure when the destination refuses, Error when the R2 object is gone. */
export async function copyObject(r2: R2Bucket, sourceKey: string, bucket: S3Bucket, key: string, sizes: CopySizes): Promise<Copied> {
  const head = await r2.head(sourceKey);
  if (!head) throw new Error(`the output ${sourceKey} is no longer in R2`);
  const contentType = head.httpMetadata?.contentType;
  if (head.size <= sizes.multipartThresholdBytes) {
    const object = await r2.get(sourceKey);
    if (!object) throw new Error(`the output ${sourceKey} is no longer in R2`);
    const etag = await bucket.put(key, fixedLength(object.body, object.size), object.size, contentType);
    return { etag, size: object.size, parts: 0 };
  }
  const uploadId = await bucket.createMultipart(key, contentType);
  try {
    const parts: { partNumber: number; etag: string }[] = [];
    for (let offset = 0, partNumber = 1; offset < head.size; offset += sizes.partBytes, partNumber++) {
      const length = Math.min(sizes.partBytes, head.size - offset);
      const part = await r2.get(sourceKey, { range: { offset, length }, onlyIf: { etagMatches: head.etag } });
      if (!part || !("body" in part)) throw new Error(`the output ${sourceKey} changed or went away during the copy`);
      parts.push({ partNumber, etag: await bucket.uploadPart(key, uploadId, partNumber, fixedLength(part.body, length), length) });
    }
    const etag = await bucket.completeMultipart(key, uploadId, parts);
    return { etag, size: head.size, parts: parts.length };
  } catch (error) {
    await bucket.abortMultipart(key, uploadId);
    throw error;
  }
}

/** A stream of known length, so fetch sends a Content-Length rather than chunks (S3 refuses chunked PUTs). */
function fixedLength(body: ReadableStream, length: number): ReadableStream {
  const { readable, writable } = new FixedLengthStream(length);
  void body.pipeTo(writable).catch(() => undefined);
  return readable;
}

// The few S3 calls a destination needs, signed with SigV4 by aws4fetch: put, delete and the
// multipart upload (create, part, complete, abort). Each call says what failed, never
// throwing for an answer: the caller decides whether to try again.
import { AwsClient } from "aws4fetch";

export interface S3Target {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/** An S3 call that did not succeed: no answer (DNS, connect, TLS), or an error answer with its S3 code. */
export class S3Failure extends Error {
  readonly kind: "network" | "answer";
  readonly status: number | null;
  readonly code: string | null;
  constructor(kind: "network" | "answer", message: string, status: number | null = null, code: string | null = null) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.code = code;
  }
}

export interface S3Options {
  /** Each call's time limit. */
  timeoutMs: number;
}

export class S3Bucket {
  readonly #client: AwsClient;
  readonly target: S3Target;
  readonly options: S3Options;
  constructor(target: S3Target, options: S3Options) {
    this.target = target;
    this.options = options;
    // retries: 0: a streamed body cannot be sent twice; retries are the store queue's.
    this.#client = new AwsClient({
      accessKeyId: target.accessKeyId,
      secretAccessKey: target.secretAccessKey,
      region: target.region,
      service: "s3",
      retries: 0,
    });
  }

  /** The object's URL, path-style (`endpoint/bucket/key`) or virtual-hosted (`bucket.host/key`). */
  url(key: string, query = ""): string {
    const endpoint = new URL(this.target.endpoint);
    const path = key.split("/").map(encodeURIComponent).join("/");
    const base = this.target.forcePathStyle
      ? `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, "")}/${encodeURIComponent(this.target.bucket)}`
      : `${endpoint.protocol}//${this.target.bucket}.${endpoint.host}${endpoint.pathname.replace(/\/+$/, "")}`;
    return `${base}/${path}${query}`;
  }

  /** One object from a body of known length; returns its ETag. */
  async put(key: string, body: ReadableStream | string | Uint8Array, size: number, contentType?: string): Promise<string | null> {
    const response = await this.#call(this.url(key), {
      method: "PUT",
      headers: { "content-length": String(size), ...(contentType ? { "content-type": contentType } : {}) },
      body,
    });
    return response.headers.get("etag");
  }

  async delete(key: string): Promise<void> {
    await this.#call(this.url(key), { method: "DELETE" });
  }

  async createMultipart(key: string, contentType?: string): Promise<string> {
    const response = await this.#call(this.url(key, "?uploads"), { method: "POST", headers: contentType ? { "content-type": contentType } : {} });
    const uploadId = xmlField(await response.text(), "UploadId");
    if (!uploadId) throw new S3Failure("answer", "CreateMultipartUpload answered without an UploadId", response.status);
    return uploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: ReadableStream | Uint8Array, size: number): Promise<string> {
    const response = await this.#call(this.url(key, `?partNumber=${partNumber}&uploadId=${encodeURIComponent(uploadId)}`), {
      method: "PUT",
      headers: { "content-length": String(size) },
      body,
    });
    const etag = response.headers.get("etag");
    if (!etag) throw new S3Failure("answer", `UploadPart ${partNumber} answered without an ETag`, response.status);
    return etag;
  }

  async completeMultipart(key: string, uploadId: string, parts: { partNumber: number; etag: string }[]): Promise<string | null> {
    const body =
      "<CompleteMultipartUpload>" +
      parts.map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${escapeXml(p.etag)}</ETag></Part>`).join("") +
      "</CompleteMultipartUpload>";
    const response = await this.#call(this.url(key, `?uploadId=${encodeURIComponent(uploadId)}`), {
      method: "POST",
      headers: { "content-type": "application/xml" },
      body,
    });
    // S3 may answer 200 with an <Error> body after it started sending (the AWS docs on CompleteMultipartUpload).
    const text = await response.text();
    const code = xmlField(text, "Code");
    if (code) throw new S3Failure("answer", `CompleteMultipartUpload: ${code}: ${xmlField(text, "Message") ?? ""}`.trim(), response.status, code);
    return xmlField(text, "ETag") ?? response.headers.get("etag");
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    await this.#call(this.url(key, `?uploadId=${encodeURIComponent(uploadId)}`), { method: "DELETE" }).catch(() => undefined);
  }

  async #call(url: string, init: RequestInit): Promise<Response> {
    const request = await this.#client.sign(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
    let response: Response;
    try {
      response = await fetch(request);
    } catch (error) {
      throw new S3Failure("network", `could not reach ${new URL(url).host}: ${(error as Error).message ?? String(error)}`);
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    const code = xmlField(text, "Code");
    const message = xmlField(text, "Message");
    throw new S3Failure(
      "answer",
      `${init.method} answered ${response.status}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}`,
      response.status,
      code,
    );
  }
}

function xmlField(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return match ? unescapeXml(match[1]!) : undefined;
}

function unescapeXml(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

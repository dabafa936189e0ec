// AWS Signature Version 4 query-string presigning ("Authenticating Requests: Using Query
// Parameters", docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html),
// with WebCrypto. R2 speaks the S3 API, so a presigned PUT lets a client send an upload
// straight to R2 without the bytes passing through the Worker (docs/api.md: direct uploads).
import { toHex } from "../lib/crypto.ts";

export interface PresignRequest {
  method: "GET" | "PUT";
  /** https://host/path of the object; the path as stored, not yet percent-encoded. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `auto` for R2. */
  region: string;
  expiresInS: number;
  now: Date;
  /** Headers the request must carry exactly (besides host), such as content-length. */
  headers?: Record<string, string>;
}

const encoder = new TextEncoder();

/** RFC 3986 percent-encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ (and `/` in paths). */
function uriEncode(text: string, keepSlash: boolean): string {
  return Array.from(encoder.encode(text), (byte) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === "/") ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
}

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, encoder.encode(message)));
}

async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** The presigned URL: the object's URL with the X-Amz-* query parameters and the signature. */
export async function presignUrl(request: PresignRequest): Promise<string> {
  const url = new URL(request.url);
  const datetime = request.now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const date = datetime.slice(0, 8);
  const scope = `${date}/${request.region}/s3/aws4_request`;
  const headers = Object.entries({ host: url.host, ...request.headers })
    .map(([name, value]) => [name.toLowerCase(), value.trim()] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const signedHeaders = headers.map(([name]) => name).join(";");
  const query: [string, string][] = [
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
    ["X-Amz-Credential", `${request.accessKeyId}/${scope}`],
    ["X-Amz-Date", datetime],
    ["X-Amz-Expires", String(request.expiresInS)],
    ["X-Amz-SignedHeaders", signedHeaders],
  ];
  const canonicalQuery = query
    .map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)])
    .sort(([a], [b]) => (a! < b! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalPath = uriEncode(decodeURIComponent(url.pathname), true);
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery,
    headers.map(([name, value]) => `${name}:${value}\n`).join(""),
    signedHeaders,
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const stringToSign = ["AWS4-HMAC-SHA256", datetime, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(encoder.encode(`AWS4${request.secretAccessKey}`), date);
  for (const part of [request.region, "s3", "aws4_request"]) key = await hmac(key, part);
  const signature = toHex(await hmac(key, stringToSign));
  return `${url.origin}${canonicalPath}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}

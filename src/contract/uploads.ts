// Direct uploads (POST /v1/uploads) and resumable ones (tus 1.0 at /v1/uploads/tus): the
// request, the upload as the API shows it, the media types an upload may declare, and the
// `upload:upl_…` reference a job uses as its input. docs/api.md: direct uploads, resumable uploads.
import { z } from "zod";

export const UPLOAD_LIMITS = {
  /** Largest declared size: the processor's default input limit (MAX_INPUT_BYTES), 2 GiB. */
  maxBytes: 2 * 1024 ** 3,
  /** An upload no job has used for this long is removed (row and bytes) by the cron. */
  unusedLifetimeMs: 24 * 3600_000,
  /** How long the upload target (URL) stays valid. */
  targetLifetimeS: 3600,
} as const;

const IMAGE = ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif", "image/tiff"] as const;
const VIDEO = ["video/mp4", "video/quicktime", "video/webm", "video/x-matroska", "video/mpeg", "video/x-msvideo", "video/ogg"] as const;
const AUDIO = ["audio/mpeg", "audio/mp4", "audio/aac", "audio/wav", "audio/x-wav", "audio/flac", "audio/ogg", "audio/webm", "audio/x-matroska"] as const;
const PDF = ["application/pdf"] as const;

/** The media types an upload may declare, by kind; each job type's definition (jobs/) names the kind it takes. */
export const UPLOAD_MEDIA = { image: IMAGE, video: VIDEO, audio: AUDIO, pdf: PDF } as const;

export const UPLOADABLE_CONTENT_TYPES = [...IMAGE, ...VIDEO, ...AUDIO, ...PDF] as const;

/** `upload:upl_…`: a job's input taken from one of the organization's uploads. */
export const UPLOAD_REF = /^upload:(upl_[A-Za-z0-9]{24})$/;

export function uploadRefId(url: string): string | undefined {
  return UPLOAD_REF.exec(url)?.[1];
}

export const createUploadRequest = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\\u0000-\u001f]+$/, "a file name without slashes or control characters")
    .describe("The file's name, kept for your reference."),
  contentType: z.enum(UPLOADABLE_CONTENT_TYPES).describe("The media type of the bytes; a job only takes an upload whose type fits it."),
  size: z.int().min(1).max(UPLOAD_LIMITS.maxBytes).describe("The exact size in bytes; the upload must send exactly this many."),
});
export type CreateUploadRequest = z.infer<typeof createUploadRequest>;

export const UPLOAD_STATUSES = ["pending", "uploaded"] as const;
export const UPLOAD_PROTOCOLS = ["put", "tus"] as const;

/**
 * The tus 1.0.0 protocol as this service speaks it (tus.io/protocols/resumable-upload):
 * the version, the extensions OPTIONS advertises and the checksum algorithms.
 */
export const TUS = {
  version: "1.0.0",
  extensions: ["creation", "creation-with-upload", "termination", "expiration", "checksum"],
  checksumAlgorithms: ["sha1", "sha256"],
  /** The PATCH body's media type, as the protocol names it. */
  patchContentType: "application/offset+octet-stream",
  path: "/v1/uploads/tus",
} as const;

/** The extension for each media type a resumable upload may infer from its file name when Upload-Metadata names no type. */
export const UPLOAD_EXTENSIONS: Record<string, (typeof UPLOADABLE_CONTENT_TYPES)[number]> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
  tif: "image/tiff",
  tiff: "image/tiff",
  mp4: "video/mp4",
  m4v: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
  mkv: "video/x-matroska",
  mpg: "video/mpeg",
  mpeg: "video/mpeg",
  avi: "video/x-msvideo",
  ogv: "video/ogg",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  wav: "audio/wav",
  flac: "audio/flac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  weba: "audio/webm",
  mka: "audio/x-matroska",
  pdf: "application/pdf",
};

export const createUploadTokenRequest = z.strictObject({
  maxUploads: z
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("How many uploads the token may create (default 1). The page holding it can be read by anyone who loads it: give it no more than the page needs."),
  maxBytes: z
    .int()
    .min(1)
    .max(UPLOAD_LIMITS.maxBytes)
    .optional()
    .describe("The largest upload the token may create, in bytes (default and at most the plan's largest upload)."),
  uploadId: z
    .string()
    .regex(/^upl_[A-Za-z0-9]{24}$/, "an upload id, upl_…")
    .optional()
    .describe("A token to finish this resumable upload (HEAD and PATCH it, from a page whose token expired); it creates none. Not with `maxUploads` or `maxBytes`."),
});
export type CreateUploadTokenRequest = z.infer<typeof createUploadTokenRequest>;

export const uploadTokenCreated = z.object({
  token: z.string().describe("Send it as `Authorization: Bearer <token>` on the tus requests, instead of the API key. It can create and write resumable uploads only, and only its own."),
  endpoint: z.string().describe("The tus endpoint: `POST` creates an upload there."),
  expiresAt: z.string().describe("The token stops working at this time (an upload it started stays, and the API key can still read it)."),
  maxUploads: z.int().describe("How many uploads it may create (0 for a token that finishes one upload)."),
  maxBytes: z.int().describe("The largest upload it may create, in bytes."),
  uploadUrl: z.string().optional().describe("With `uploadId`: the upload's tus URL, to resume at (tus-js-client's `uploadUrl`)."),
});

export const upload = z.object({
  id: z.string().describe("`upl_…`; use it as a job's input: `upload:upl_…`."),
  status: z.enum(UPLOAD_STATUSES).describe("`pending` until the bytes arrive, then `uploaded`."),
  protocol: z.enum(UPLOAD_PROTOCOLS).describe("`put`: one PUT to `target` (POST /v1/uploads); `tus`: resumable (/v1/uploads/tus)."),
  received: z.int().describe("Bytes received and kept so far (a resumable upload's Upload-Offset); `size` once uploaded."),
  filename: z.string(),
  contentType: z.string(),
  size: z.int(),
  createdAt: z.string(),
  uploadedAt: z.string().optional(),
  expiresAt: z.string().describe("When the upload is removed unless a job uses it (each job that does moves this 24 h on); an unfinished resumable upload's Upload-Expires."),
});

export const createdUpload = upload.extend({
  target: z
    .object({
      method: z.literal("PUT"),
      url: z.string().describe("Send the bytes here; no API key (the URL is signed)."),
      headers: z.record(z.string(), z.string()).describe("Send exactly these headers with the PUT."),
      expiresAt: z.string().describe("The URL stops working at this time."),
    })
    .describe("Where to PUT the bytes."),
});

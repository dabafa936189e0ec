// Direct uploads (POST /v1/uploads): the request, the upload as the API shows it, the
// media types each job type takes, and the `upload:upl_…` reference a job uses as its
// input. docs/api.md: direct uploads.
import { z } from "zod";
import type { JobType } from "./names.ts";

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
const PDF = ["application/pdf"] as const;

/** The media types an uploaded input may declare, per job type. */
export const UPLOAD_CONTENT_TYPES: Record<JobType, readonly string[]> = {
  compressImage: IMAGE,
  compressPdf: PDF,
  compressVideo: VIDEO,
  videoThumbnail: VIDEO,
  extractAudio: VIDEO,
  videoExtraction: VIDEO,
  videoAdaptive: VIDEO,
};

export const UPLOADABLE_CONTENT_TYPES = [...IMAGE, ...VIDEO, ...PDF] as const;

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

export const upload = z.object({
  id: z.string().describe("`upl_…`; use it as a job's input: `upload:upl_…`."),
  status: z.enum(UPLOAD_STATUSES).describe("`pending` until the bytes arrive, then `uploaded`."),
  filename: z.string(),
  contentType: z.string(),
  size: z.int(),
  createdAt: z.string(),
  uploadedAt: z.string().optional(),
  expiresAt: z.string().describe("When the upload is removed unless a job uses it (each job that does moves this 24 h on)."),
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

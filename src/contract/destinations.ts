// Destinations (docs/destinations.md): an organization's S3-compatible bucket that job
// outputs are copied to; the create body, the destination as the API shows it, its
// check, and a job's `store` as the job shows it.
import { z } from "zod";
import { STORE_STATUSES } from "./enums.ts";

export const createDestinationBody = z.strictObject({
  name: z.string().min(1).max(100).describe("A name to tell it by."),
  endpoint: z.string().min(1).max(2048).describe("The S3 API's origin, such as `https://s3.eu-west-1.amazonaws.com` or `https://<account>.r2.cloudflarestorage.com`."),
  bucket: z.string().min(1).max(255),
  region: z.string().min(1).max(64).describe("The signing region; `auto` for R2."),
  accessKeyId: z.string().min(1).max(256),
  secretAccessKey: z.string().min(1).max(512).describe("Stored encrypted; never returned."),
  forcePathStyle: z.boolean().default(false).describe("Path-style URLs (`endpoint/bucket/key`) instead of virtual-hosted ones (`bucket.endpoint/key`)."),
});
export type CreateDestinationBody = z.infer<typeof createDestinationBody>;

export const destination = z.object({
  id: z.string(),
  name: z.string(),
  endpoint: z.string(),
  bucket: z.string(),
  region: z.string(),
  accessKeyId: z.string(),
  /** The secret's last 4 characters: all any route shows of it. */
  secretAccessKeyLast4: z.string(),
  forcePathStyle: z.boolean(),
  createdAt: z.string(),
});
export type Destination = z.infer<typeof destination>;

export const CHECK_PROBLEMS = ["unreachable", "bucket_missing", "forbidden", "error"] as const;

export const destinationCheck = z.object({
  ok: z.boolean(),
  /** The failing step, when not ok. */
  step: z.enum(["write", "delete"]).optional(),
  problem: z.enum(CHECK_PROBLEMS).optional(),
  /** The bucket's HTTP status and S3 error code, when it answered. */
  status: z.int().nullable().optional(),
  code: z.string().nullable().optional(),
  message: z.string().optional(),
});
export type DestinationCheck = z.infer<typeof destinationCheck>;

export const storedObject = z.object({
  name: z.string().describe("The output's name."),
  key: z.string().describe("Its key in the destination bucket."),
  status: z.enum(STORE_STATUSES),
  size: z.int().min(0),
  etag: z.string().nullable(),
  error: z.string().nullable(),
});

export const jobStoreView = z
  .object({
    destination: z.string(),
    prefix: z.string(),
    /** null until the job completes; then pending until every output is stored (`stored`) or the copy finally failed (`failed`). */
    status: z.enum(STORE_STATUSES).nullable(),
    objects: z.array(storedObject),
  })
  .describe("Where the outputs are copied (docs/destinations.md).");
export type JobStoreView = z.infer<typeof jobStoreView>;

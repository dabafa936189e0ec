// Building blocks shared by the job-type schemas: URLs, presets, dimensions.
// Every bound here is part of the public contract (docs/job-types.md).
import { z } from "zod";
import { UPLOAD_REF } from "./uploads.ts";

/** An http(s) URL. Address rules (SSRF) are applied by the server, not here. */
export const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http or https URL" })
  .max(2048);

/** The media to process: an http(s) URL, or `upload:upl_…` for one of your uploads (contract/uploads.ts). */
export const mediaUrl = z.union([httpUrl, z.string().regex(UPLOAD_REF)], {
  error: "must be an http or https URL, or upload:<upload id> (upload:upl_…)",
});

export const qualityPreset = z.enum(["low", "medium", "high"]);
export type QualityPreset = z.infer<typeof qualityPreset>;

/** 1–100, as in every image encoder's quality scale. */
export const imageQuality = z.int().min(1).max(100);

/** Output dimensions in pixels. 16384 is the largest side any of our encoders accepts. */
export const dimension = z.int().min(1).max(16384);

export const imageFormat = z.enum(["jpg", "png", "webp"]);

/** Where a signed download link goes in a result, with the moment it stops working. */
export const signedFile = {
  url: z.string(),
  expiresAt: z.string(),
  size: z.int(),
};

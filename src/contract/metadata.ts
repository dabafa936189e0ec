// Job metadata: a small map of the caller's own strings (an order id, a user id) stored
// with the job, returned on every read and webhook, and usable as a list filter. The
// limits are Stripe's (docs/api.md: metadata).
import { z } from "zod";

export const METADATA_LIMITS = { maxKeys: 20, maxKeyLength: 40, maxValueLength: 500 } as const;

const KEY = new RegExp(`^[A-Za-z0-9_-]{1,${METADATA_LIMITS.maxKeyLength}}$`);

export const metadataKey = z.string().regex(KEY, `a metadata key is 1–${METADATA_LIMITS.maxKeyLength} characters of letters, digits, _ and -`);

export const metadataValue = z.string().max(METADATA_LIMITS.maxValueLength);

export const jobMetadata = z
  // An invalid key's own message, rather than zod's "Invalid key in record".
  .record(metadataKey, metadataValue, { error: (issue) => (issue.code === "invalid_key" ? issue.issues[0]?.message : undefined) })
  .refine((map) => Object.keys(map).length <= METADATA_LIMITS.maxKeys, `at most ${METADATA_LIMITS.maxKeys} keys`)
  .describe(
    `Your own strings, kept with the job and returned on every read and webhook: at most ${METADATA_LIMITS.maxKeys} keys of 1–${METADATA_LIMITS.maxKeyLength} characters of [A-Za-z0-9_-], values up to ${METADATA_LIMITS.maxValueLength} characters.`,
  );

export type JobMetadata = Record<string, string>;

// The query of GET /v1/jobs: validated by the route, described by the OpenAPI document.
// Filters nest Stripe's way, `created[gte]=…` and `metadata[order]=…` (OpenAPI's
// deepObject style); `nestQuery` turns the flat query string into that shape.
import { z } from "zod";
import { JOB_STATUSES } from "./job.ts";
import { metadataKey, metadataValue } from "./metadata.ts";
import { HTTP_JOB_TYPES, JOB_TYPES } from "./names.ts";

const unixSeconds = z.coerce.number().int().min(0).max(253_402_300_799);

export const listJobsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Jobs per page."),
  cursor: z.string().max(512).optional().describe("`nextCursor` of the previous page (opaque)."),
  status: z
    .enum([...JOB_STATUSES, "pending"])
    .optional()
    .describe("Only jobs in this state; `pending` (the client library's word) means `queued`."),
  type: z
    .enum([...HTTP_JOB_TYPES, ...JOB_TYPES] as [string, ...string[]])
    .optional()
    .describe("Only jobs of this type, in either spelling (`compress-image` or `compressImage`)."),
  created: z
    .strictObject({
      gte: unixSeconds.optional().describe("Created at or after this time, Unix seconds."),
      lt: unixSeconds.optional().describe("Created before this time, Unix seconds."),
    })
    .optional()
    .describe("Creation time bounds in Unix seconds, as `created[gte]=1767225600&created[lt]=1767312000`."),
  metadata: z
    .record(metadataKey, metadataValue)
    .optional()
    .describe("Only jobs whose metadata has each of these exact key–value pairs, as `metadata[order]=ord_123`."),
});
export type ListJobsQuery = z.output<typeof listJobsQuery>;

const NESTED = /^(created|metadata)\[([^\]]*)\]$/;

/** `{"created[gte]": "1", "metadata[order]": "x"}` → `{created: {gte: "1"}, metadata: {order: "x"}}`. */
export function nestQuery(flat: Record<string, string>): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flat)) {
    const match = NESTED.exec(name);
    if (!match) {
      nested[name] = value;
      continue;
    }
    const group = (nested[match[1]!] ??= {}) as Record<string, string>;
    group[match[2]!] = value;
  }
  return nested;
}

/** A query issue's path as the caller wrote it: `created[gte]`, `metadata[order]`, `limit`. */
export function queryPath(path: PropertyKey[]): string {
  const [head, ...rest] = path.map(String);
  return head === undefined ? "(query)" : head + rest.map((p) => `[${p}]`).join("");
}

// The query of GET /v1/jobs: validated by the route, described by the OpenAPI document.
import { z } from "zod";
import { JOB_STATUSES } from "./job.ts";

export const listJobsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Jobs per page."),
  cursor: z.string().max(512).optional().describe("`nextCursor` of the previous page (opaque)."),
  status: z
    .enum([...JOB_STATUSES, "pending"])
    .optional()
    .describe("Only jobs in this state; `pending` (the client library's word) means `queued`."),
});

// POST /v1/jobs accepts two body forms (docs/api.md, "Creating a job"):
//   HTTP dialect  {type, input, options?, priority?, webhookUrl?, webhookSecret?, metadata?}
//   SDK dialect   {type, params: {url, …}, priority?, webhookUrl?, webhookSecret?, metadata?}
// with either spelling of `type`. Both are validated by the type's one params schema, and
// every problem is reported with the field path as the caller wrote it.
import { z } from "zod";
import { httpUrl } from "./common.ts";
import { jobMetadata, type JobMetadata } from "./metadata.ts";
import { PRIORITY_DEFAULT } from "./job.ts";
import { canonicalJobType, HTTP_JOB_TYPES, JOB_TYPES, jobTypes, type JobParams, type JobType } from "./registry.ts";

export interface FieldIssue {
  /** Dotted path of the field in the request body, such as `options.quality`. */
  path: string;
  message: string;
}

export interface CreateJobRequest {
  type: JobType;
  params: JobParams;
  priority: number;
  webhookUrl?: string;
  webhookSecret?: string;
  metadata?: JobMetadata;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/** The create fields both dialects share, beside the type and the media. */
export const createJobFields = z.object({
  priority: z.int().min(1).max(10).default(PRIORITY_DEFAULT).describe("1–10, lower runs first within an organization."),
  webhookUrl: httpUrl.optional().describe("Receives a signed POST with the job when it ends."),
  webhookSecret: z.string().min(16).max(256).optional().describe("Signs this job's webhooks instead of the organization's secret."),
  metadata: jobMetadata.optional(),
});

const envelope = z.strictObject({
  type: z.string(),
  input: z.unknown().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  ...createJobFields.shape,
});

function toIssues(error: z.ZodError, prefix: (path: PropertyKey[]) => PropertyKey[]): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: dotted(prefix([...issue.path, key])), message: "unknown field" }));
    }
    return [{ path: dotted(prefix(issue.path)), message: issue.message }];
  });
}

function dotted(path: PropertyKey[]): string {
  return path.map(String).join(".") || "(body)";
}

export function parseCreateJob(body: unknown): ParseResult<CreateJobRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ path: "(body)", message: "must be a JSON object" }] };
  }
  const head = envelope.safeParse(body);
  if (!head.success) return { ok: false, issues: toIssues(head.error, (p) => p) };
  const { type: typeName, input, options, params, ...rest } = head.data;

  const type = canonicalJobType(typeName);
  if (!type) {
    const known = [...HTTP_JOB_TYPES, ...JOB_TYPES].join(", ");
    return { ok: false, issues: [{ path: "type", message: `unknown job type "${typeName}"; expected one of ${known}` }] };
  }

  let candidate: Record<string, unknown>;
  let prefix: (path: PropertyKey[]) => PropertyKey[];
  if (params !== undefined) {
    if (input !== undefined || options !== undefined) {
      return {
        ok: false,
        issues: [{ path: "params", message: "send either input and options, or params with a url, not both" }],
      };
    }
    candidate = params;
    prefix = (path) => ["params", ...path];
  } else {
    if (input === undefined) {
      return { ok: false, issues: [{ path: "input", message: "required: the URL of the media to process" }] };
    }
    if (options && Object.hasOwn(options, "url")) {
      return { ok: false, issues: [{ path: "options.url", message: "unknown field; the URL goes in input" }] };
    }
    candidate = { ...options, url: input };
    prefix = ([first, ...tail]) => (first === "url" ? ["input", ...tail] : ["options", first, ...tail]).filter((p) => p !== undefined) as PropertyKey[];
  }

  const parsed = jobTypes[type].params.safeParse(candidate);
  if (!parsed.success) return { ok: false, issues: toIssues(parsed.error, prefix) };
  return { ok: true, value: { type, params: parsed.data as JobParams, ...rest } };
}

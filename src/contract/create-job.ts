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
  /** Path of the field in the request body, such as `options.quality` or `options.frames.values.1`; `(body)` for the body itself. */
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
  store?: JobStore;
}

/** Where the outputs are copied when the job completes (docs/destinations.md). */
export const jobStore = z
  .strictObject({
    destination: z.string().min(1).max(64).describe("A destination's id (`dst_…`) of the job's organization."),
    prefix: z
      .string()
      .max(512)
      .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "must not start with / or contain ..")
      .optional()
      .describe("Prepended to each output's name in the bucket, such as `videos/2026/`."),
  })
  .describe("Copies each output to the organization's own bucket when the job completes.");
export type JobStore = z.infer<typeof jobStore>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/** The create fields both dialects share, beside the type and the media. */
export const createJobFields = z.object({
  priority: z.int().min(1).max(10).default(PRIORITY_DEFAULT).describe("1–10, lower runs first within an organization."),
  webhookUrl: httpUrl.optional().describe("Receives a signed POST with the job when it ends."),
  webhookSecret: z.string().min(16).max(256).optional().describe("Signs this job's webhooks instead of the organization's secret."),
  metadata: jobMetadata.optional(),
  store: jobStore.optional(),
});

const envelope = z.strictObject({
  type: z.string(),
  input: z.unknown().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  ...createJobFields.shape,
});

export function toIssues(error: z.ZodError, prefix: (path: PropertyKey[]) => PropertyKey[]): FieldIssue[] {
  return error.issues.flatMap((issue) => flatten(issue, [])).map(({ path, message }) => ({ path: dotted(prefix(path)), message }));
}

type RawIssue = z.core.$ZodIssue;

/**
 * One issue per broken rule, at the deepest path zod knows. A union (`frames: false | {mode…}`)
 * reports "Invalid input" with every branch's errors; the branch the value was meant for is
 * the one that got past its root check (the right type, a known `mode`), so its errors are
 * the caller's. When no branch did, the message lists what the field may be.
 */
function flatten(issue: RawIssue, base: PropertyKey[]): { path: PropertyKey[]; message: string }[] {
  const path = [...base, ...issue.path];
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ path: [...path, key], message: "unknown field" }));
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const meant = issue.errors.filter((branch) => branch.some((inner) => inner.path.length > 0));
    if (meant.length > 0) return meant[0]!.flatMap((inner) => flatten(inner, path));
    const expected = issue.errors.flatMap((branch) => branch.map(expectation));
    return [{ path, message: `must be ${[...new Set(expected)].join(" or ")}` }];
  }
  // A discriminated union's unknown tag (`mode: "every"`) carries the tags it knows.
  if (issue.code === "invalid_union" && "options" in issue && Array.isArray(issue.options)) {
    return [{ path, message: `must be one of ${issue.options.map((o: unknown) => JSON.stringify(o)).join(", ")}` }];
  }
  return [{ path, message: issue.message }];
}

function expectation(issue: RawIssue): string {
  if (issue.code === "invalid_value") return issue.values.map((v) => JSON.stringify(v)).join(" or ");
  if (issue.code === "invalid_type") return issue.expected === "object" ? "an object" : `a ${issue.expected}`;
  return issue.message;
}

/** `options.frames.values.1`; a key that is not a plain name is quoted, `options["a.b"]`, so every path reads one way. */
function dotted(path: PropertyKey[]): string {
  if (path.length === 0) return "(body)";
  return path
    .map((part, i) => {
      const key = String(part);
      return /^(?:[A-Za-z_$][\w$]*|\d+)$/.test(key) ? (i === 0 ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
    })
    .join("");
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

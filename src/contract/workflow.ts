// Workflows and templates (docs/workflows.md): one input, named steps each run as a job, a
// step reading the workflow's input or another step's output. The request in both dialects,
// its checks (types, params by each type's own schema, `use`, cycles, what a step may read),
// and the workflow as the API shows it.
import { z } from "zod";
import { httpUrl, mediaUrl } from "./common.ts";
import { jobStore, toIssues, type FieldIssue, type ParseResult } from "./create-job.ts";
import { STORE_STATUSES } from "./enums.ts";
import { httpJob, JOB_STATUSES, type HttpJob, type JobStatus } from "./job.ts";
import { jobMetadata, type JobMetadata } from "./metadata.ts";
import { canonicalJobType, HTTP_JOB_TYPES, JOB_TYPES, jobTypes, type JobParams, type JobType } from "./registry.ts";
import { UPLOAD_MEDIA } from "./uploads.ts";

export const WORKFLOW_LIMITS = {
  /** Steps in one workflow or template: each is a job, counted by the plan's hourly quota. */
  maxSteps: 20,
  maxTemplateNameLength: 100,
} as const;

/** A step's name: the key in `steps`, and what another step's `use` names. */
export const STEP_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** What a file is, for what a step may read: a step takes the kinds its type's uploads may be. */
export type MediaKind = "video" | "audio" | "image" | "pdf" | "data";

/** Where an output's name sits in a type's stored result, and what it is. */
interface StepOutput {
  /** The field path of the file's `url` in the stored result. */
  path: readonly string[];
  kind: (params: Record<string, unknown>) => MediaKind;
}

const main = (kind: MediaKind): StepOutput => ({ path: ["url"], kind: () => kind });

/**
 * The outputs of each type another step may read: `main` (the result's own `url`) unless
 * named. A type not listed here, or an output not listed, cannot be read (an HLS stream, a
 * set of frames). `output` in a step picks one; without it, `main`.
 */
export const STEP_OUTPUTS: Partial<Record<JobType, Record<string, StepOutput>>> = {
  compressVideo: { main: main("video") },
  compressImage: { main: main("image") },
  compressPdf: { main: main("pdf") },
  videoThumbnail: { main: main("image") },
  extractAudio: { main: main("audio") },
  audioWaveform: { main: main("image"), peaks: { path: ["peaks", "url"], kind: () => "data" } },
  videoExtraction: { audio: { path: ["audio", "url"], kind: () => "audio" } },
  videoStoryboard: { sprite: { path: ["sprite", "url"], kind: () => "image" } },
  videoPreview: { main: { path: ["url"], kind: (p) => (p.format === "mp4" ? "video" : "image") } },
  videoAdaptive: { mp4: { path: ["mp4", "url"], kind: () => "video" } },
  videoClip: { main: main("video") },
  videoConcat: { main: main("video") },
};

/** The kinds of input a type takes: those of the uploads it accepts. */
export function acceptedKinds(type: JobType): MediaKind[] {
  const accepted = new Set<string>(jobTypes[type].uploadContentTypes);
  return (Object.keys(UPLOAD_MEDIA) as (keyof typeof UPLOAD_MEDIA)[]).filter((kind) => UPLOAD_MEDIA[kind].some((t) => accepted.has(t)));
}

/** The output name in a completed step's stored result, or undefined when it made none (an optional output not asked for). */
export function stepOutputName(type: JobType, output: string, result: unknown): string | undefined {
  const spec = STEP_OUTPUTS[type]?.[output];
  let value: unknown = result;
  for (const key of spec?.path ?? []) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * A step's input read from another job's output in R2 (`output:<job id>/<output name>`). It is
 * internal: only the workflow runner writes it in a step job's params, the processor reads it
 * through the runner's input route (callback.input), and the public create-job input accepts
 * only URLs and `upload:` references (common.ts `mediaUrl`).
 */
export const OUTPUT_REF = /^output:(job_[A-Za-z0-9]+)\/((?:[A-Za-z0-9][A-Za-z0-9_-]{0,49}\/)?[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.[A-Za-z0-9]{1,10})$/;

export function outputRef(jobId: string, name: string): string {
  return `output:${jobId}/${name}`;
}

export function parseOutputRef(url: string): { jobId: string; name: string } | undefined {
  const match = OUTPUT_REF.exec(url);
  return match ? { jobId: match[1]!, name: match[2]! } : undefined;
}

/** A step as written: either dialect's type name, `params` (or the HTTP dialect's `options`) without the url. */
const stepBody = z.strictObject({
  type: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  use: z.string().optional().describe("The step whose output this step reads; absent: the workflow's input."),
  output: z.string().optional().describe("Which output of the used step, when it has several (`main` by default)."),
});

const stepsBody = z.record(z.string(), z.unknown());

/** A validated step, as stored (canonical type, params without url). */
export interface WorkflowStep {
  type: JobType;
  params: Record<string, unknown>;
  use?: string;
  output?: string;
}
export type WorkflowSteps = Record<string, WorkflowStep>;

/** A stand-in input for checking a template's params, which have no input yet. */
const PLACEHOLDER_INPUT = "https://example.com/input";

/**
 * Checks `steps` (at `base`, such as `steps`): names, types, each step's params by its type's
 * schema (with the input in place of url), `use` naming a step, no cycle, at most maxSteps,
 * and a step reading an output of a kind its type takes. Returns the steps with their params
 * as given (defaults are filled at run time by the job's own parse) or every problem.
 */
export function parseSteps(body: unknown, base: string, input = PLACEHOLDER_INPUT): ParseResult<WorkflowSteps> {
  const head = stepsBody.safeParse(body);
  if (!head.success) return { ok: false, issues: [{ path: base, message: "must be an object of named steps" }] };
  const entries = Object.entries(head.data);
  const issues: FieldIssue[] = [];
  if (entries.length === 0) issues.push({ path: base, message: "at least one step" });
  if (entries.length > WORKFLOW_LIMITS.maxSteps) issues.push({ path: base, message: `at most ${WORKFLOW_LIMITS.maxSteps} steps` });
  const steps: WorkflowSteps = {};
  for (const [name, raw] of entries) {
    const at = `${base}.${name}`;
    if (!STEP_NAME.test(name)) {
      issues.push({ path: `${base}[${JSON.stringify(name)}]`, message: "a step name is 1-40 letters, digits, _ and -, starting with a letter" });
      continue;
    }
    const parsed = stepBody.safeParse(raw);
    if (!parsed.success) {
      issues.push(...toIssues(parsed.error, (path) => [base, name, ...path]));
      continue;
    }
    const { type: typeName, params, options, use, output } = parsed.data;
    const type = canonicalJobType(typeName);
    if (!type) {
      issues.push({ path: `${at}.type`, message: `unknown job type "${typeName}"; expected one of ${[...HTTP_JOB_TYPES, ...JOB_TYPES].join(", ")}` });
      continue;
    }
    if (params !== undefined && options !== undefined) {
      issues.push({ path: `${at}.params`, message: "send either params or options, not both" });
      continue;
    }
    const field = options !== undefined ? "options" : "params";
    const given = params ?? options ?? {};
    if (Object.hasOwn(given, "url")) {
      issues.push({ path: `${at}.${field}.url`, message: "unknown field; a step's input is the workflow's url or the output of the step it uses" });
      continue;
    }
    const checked = jobTypes[type].params.safeParse({ ...given, url: input });
    if (!checked.success) {
      issues.push(...toIssues(checked.error, (path) => [base, name, field, ...path]));
      continue;
    }
    steps[name] = { type, params: given, ...(use !== undefined ? { use } : {}), ...(output !== undefined ? { output } : {}) };
  }
  if (issues.length) return { ok: false, issues };

  for (const [name, step] of Object.entries(steps)) {
    const at = `${base}.${name}`;
    if (step.use === undefined) {
      if (step.output !== undefined) issues.push({ path: `${at}.output`, message: "output picks an output of the used step; this step reads the workflow's input" });
      continue;
    }
    const used = steps[step.use];
    if (!used) {
      issues.push({ path: `${at}.use`, message: `no step named "${step.use}"; expected one of ${Object.keys(steps).join(", ")}` });
      continue;
    }
    const outputs = STEP_OUTPUTS[used.type] ?? {};
    const output = step.output ?? "main";
    const spec = outputs[output];
    if (!spec) {
      const names = Object.keys(outputs);
      issues.push({
        path: `${at}.${step.output === undefined ? "use" : "output"}`,
        message: names.length
          ? `step "${step.use}" (${used.type}) has no output "${output}"; expected one of ${names.join(", ")}`
          : `the output of step "${step.use}" (${used.type}) cannot be read by another step`,
      });
      continue;
    }
    const kind = spec.kind(used.params);
    const takes = acceptedKinds(step.type);
    if (!(takes as string[]).includes(kind)) {
      issues.push({ path: `${at}.use`, message: `${step.type} takes ${takes.join(" or ")}, but step "${step.use}" (${used.type}) makes ${kind === "image" || kind === "audio" ? `an ${kind}` : `a ${kind}`}` });
    }
  }
  if (issues.length) return { ok: false, issues };

  // A cycle: following `use` from a step comes back to it.
  for (const name of Object.keys(steps)) {
    const seen = new Set<string>([name]);
    for (let at = steps[name]!.use; at !== undefined; at = steps[at]!.use) {
      if (at === name) {
        issues.push({ path: `${base}.${name}.use`, message: `a cycle: ${[...seen, name].join(" → ")}` });
        break;
      }
      if (seen.has(at)) break; // a cycle not through this step, reported at its own steps
      seen.add(at);
    }
  }
  return issues.length ? { ok: false, issues } : { ok: true, value: steps };
}

/** Steps that read `name`'s output, directly or through others. */
export function dependentsOf(steps: WorkflowSteps, name: string): string[] {
  const out: string[] = [];
  const walk = (of: string) => {
    for (const [other, step] of Object.entries(steps)) {
      if (step.use === of && !out.includes(other)) {
        out.push(other);
        walk(other);
      }
    }
  };
  walk(name);
  return out;
}

/**
 * The step's params for its job, checked by the type's schema (defaults filled), with `url` its
 * input: the workflow's, or an internal `output:` reference the public schema does not take
 * (checked with a stand-in, as the processor protocol does).
 */
export function stepJobParams(step: WorkflowStep, url: string): JobParams {
  const checked = jobTypes[step.type].params.parse({ ...step.params, url: parseOutputRef(url) ? PLACEHOLDER_INPUT : url });
  return { ...(checked as object), url } as JobParams;
}

/**
 * A workflow's `store`: a job's (destination, prefix) and the steps whose outputs are copied,
 * every step when absent. The copy starts once the workflow completed; each step's outputs
 * go under `<prefix><step>/` (docs/workflows.md: store).
 */
export const workflowStoreBody = jobStore
  .extend({
    prefix: jobStore.shape.prefix.describe("Prepended to each stored step's outputs, which go under `<prefix><step>/`, such as `orders/42/`."),
    steps: z
      .array(z.string())
      .min(1)
      .max(WORKFLOW_LIMITS.maxSteps)
      .optional()
      .describe("The steps whose outputs are copied; every step when absent (such as only the final renditions, not an intermediate clip)."),
  })
  .describe("Copies the steps' outputs to the organization's own bucket once the workflow completed: each under `<prefix><step>/<output name>`.");

/** A workflow's store as kept on its row: the steps resolved (every step when none were named). */
export interface WorkflowStore {
  destination: string;
  prefix: string;
  steps: string[];
}

/** The store's steps named in `store.steps` that are not steps of the workflow, as issues. */
export function storeStepIssues(store: { steps?: string[] } | undefined, steps: WorkflowSteps): FieldIssue[] {
  return (store?.steps ?? []).flatMap((name, i) =>
    Object.hasOwn(steps, name) ? [] : [{ path: `store.steps[${i}]`, message: `no step named ${JSON.stringify(name)}; expected one of ${Object.keys(steps).join(", ")}` }],
  );
}

/** The store kept on the workflow's row: every step when the request named none, each named once. */
export function resolveStore(store: z.infer<typeof workflowStoreBody>, steps: WorkflowSteps): WorkflowStore {
  return { destination: store.destination, prefix: store.prefix ?? "", steps: store.steps ? [...new Set(store.steps)] : Object.keys(steps) };
}

/** The prefix of one step's outputs in the destination: the workflow's prefix, then the step's name. */
export function stepStorePrefix(store: Pick<WorkflowStore, "prefix">, step: string): string {
  return `${store.prefix}${step}/`;
}

const overridesBody = z.record(z.string(), z.record(z.string(), z.unknown()));

const envelope = z.strictObject({
  url: z.unknown().optional(),
  input: z.unknown().optional(),
  steps: z.unknown().optional(),
  template: z.string().optional(),
  overrides: overridesBody.optional(),
  webhookUrl: httpUrl.optional(),
  metadata: jobMetadata.optional(),
  store: workflowStoreBody.optional(),
});

export interface CreateWorkflowRequest {
  /** The input: an http(s) URL or `upload:upl_…`, as a job's. */
  url: string;
  /** Where the input was written (`url` or `input`), for the problems found later. */
  inputField: "url" | "input";
  /** The steps as given, or undefined with a template (resolved by the route, then parseSteps again). */
  steps?: WorkflowSteps;
  template?: string;
  overrides?: Record<string, Record<string, unknown>>;
  webhookUrl?: string;
  metadata?: JobMetadata;
  /** As given; its steps are checked against the steps once known (`storeStepIssues`). */
  store?: z.infer<typeof workflowStoreBody>;
}

/**
 * POST /v1/workflows, either dialect: `url` (SDK) or `input` (HTTP); `steps`, or `template`
 * with optional `overrides` (name → params merged over the template step's). With a
 * template the steps are checked once merged (`applyTemplate`).
 */
export function parseCreateWorkflow(body: unknown): ParseResult<CreateWorkflowRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, issues: [{ path: "(body)", message: "must be a JSON object" }] };
  const head = envelope.safeParse(body);
  if (!head.success) return { ok: false, issues: toIssues(head.error, (p) => p) };
  const { url, input, steps, template, overrides, webhookUrl, metadata, store } = head.data;
  const extras = { ...(webhookUrl ? { webhookUrl } : {}), ...(metadata ? { metadata } : {}), ...(store ? { store } : {}) };
  if (url !== undefined && input !== undefined) return { ok: false, issues: [{ path: "input", message: "send either url or input, not both" }] };
  const inputField = input !== undefined ? "input" : "url";
  const media = mediaUrl.safeParse(input ?? url);
  if (!media.success) {
    return { ok: false, issues: [{ path: inputField, message: url === undefined && input === undefined ? "required: the URL of the media to process, or upload:<upload id>" : media.error.issues[0]!.message }] };
  }
  if (template !== undefined) {
    if (steps !== undefined) return { ok: false, issues: [{ path: "steps", message: "send either steps or a template, not both" }] };
    return { ok: true, value: { url: media.data, inputField, template, ...(overrides ? { overrides } : {}), ...extras } };
  }
  if (overrides !== undefined) return { ok: false, issues: [{ path: "overrides", message: "overrides apply to a template's steps; send template too" }] };
  if (steps === undefined) return { ok: false, issues: [{ path: "steps", message: "required: the named steps, or a template" }] };
  const parsed = parseSteps(steps, "steps", media.data);
  if (!parsed.ok) return parsed;
  const storeIssues = storeStepIssues(store, parsed.value);
  if (storeIssues.length) return { ok: false, issues: storeIssues };
  return { ok: true, value: { url: media.data, inputField, steps: parsed.value, ...extras } };
}

/** A template's steps with `overrides` merged over their params, checked again (paths under `overrides` for an unknown step, `steps` otherwise). */
export function applyTemplate(steps: WorkflowSteps, overrides: Record<string, Record<string, unknown>> | undefined, input: string): ParseResult<WorkflowSteps> {
  const unknown = Object.keys(overrides ?? {}).filter((name) => !Object.hasOwn(steps, name));
  if (unknown.length) return { ok: false, issues: unknown.map((name) => ({ path: `overrides.${name}`, message: `the template has no step "${name}"; it has ${Object.keys(steps).join(", ")}` })) };
  const merged = Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [name, { ...step, params: { ...step.params, ...overrides?.[name] } }]),
  );
  const parsed = parseSteps(merged, "steps", input);
  if (parsed.ok) return parsed;
  // A problem in a merged step's params is the override's when the override set that field.
  return {
    ok: false,
    issues: parsed.issues.map((issue) => {
      const match = /^steps\.([^.[]+)\.params\.([^.[]+)(.*)$/.exec(issue.path);
      return match && overrides?.[match[1]!] && Object.hasOwn(overrides[match[1]!]!, match[2]!) ? { ...issue, path: `overrides.${match[1]}.${match[2]}${match[3]}` } : issue;
    }),
  };
}

export const createTemplateRequest = z.strictObject({
  name: z.string().min(1).max(WORKFLOW_LIMITS.maxTemplateNameLength).describe("Your name for the template."),
  steps: z.unknown().describe("The named steps, as in POST /v1/workflows."),
});

export const updateTemplateRequest = z.strictObject({
  name: z.string().min(1).max(WORKFLOW_LIMITS.maxTemplateNameLength).optional(),
  steps: z.unknown().optional(),
});

/** A step as the API shows it: its place in the workflow, then its job (docs/api.md, "The job"). */
export const httpWorkflowStep = httpJob.extend({
  use: z.string().nullable().describe("The step whose output this step reads; null: the workflow's input."),
  output: z.string().nullable().describe("Which output of the used step; null: its main output."),
});
export type HttpWorkflowStep = z.infer<typeof httpWorkflowStep>;

export const WORKFLOW_STATUSES = JOB_STATUSES;
export type WorkflowStatus = JobStatus;

export const workflowError = z.object({
  step: z.string().describe("The step that failed the workflow."),
  code: z.string().describe("The step's error code (`cancelled` when the step itself was cancelled)."),
  message: z.string(),
});

export const workflowStoreView = z
  .object({
    destination: z.string(),
    prefix: z.string(),
    steps: z.array(z.string()).describe("The steps whose outputs are copied; each step's own `store` lists its outputs' keys and statuses."),
    status: z
      .enum(STORE_STATUSES)
      .nullable()
      .describe("null until the workflow completed (and for good when it failed or was cancelled: nothing is copied then); pending while a step's copy runs; stored once every output is; failed when a step's copy finally failed."),
  })
  .describe("Where the steps' outputs are copied (docs/workflows.md: store).");
export type WorkflowStoreView = z.infer<typeof workflowStoreView>;

/** The workflow's store status from its stored steps' (each a job's store_status). */
export function workflowStoreStatus(steps: { storeStatus: (typeof STORE_STATUSES)[number] | null }[]): WorkflowStoreView["status"] {
  if (steps.some((s) => s.storeStatus === "pending")) return "pending";
  if (steps.some((s) => s.storeStatus === "failed")) return "failed";
  return steps.length > 0 && steps.every((s) => s.storeStatus === "stored") ? "stored" : null;
}

export const httpWorkflow = z.object({
  id: z.string(),
  status: z.enum(WORKFLOW_STATUSES).describe("queued until a step starts; processing; completed when every step completed; failed when a step failed (the others are cancelled); cancelled."),
  /** Mean of the steps' progress (a step not started counts 0). */
  progress: z.int().min(0).max(100),
  input: z.string().describe("The workflow's input as given: an http(s) URL or `upload:upl_…`."),
  template: z.string().nullable(),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  error: workflowError.optional(),
  metadata: jobMetadata,
  /** Present when the workflow was created with `store`. */
  store: workflowStoreView.optional(),
  steps: z.record(z.string(), httpWorkflowStep),
});
export type HttpWorkflow = z.infer<typeof httpWorkflow>;

export const httpTemplate = z.object({
  id: z.string(),
  name: z.string(),
  steps: z.record(z.string(), z.object({ type: z.string(), params: z.record(z.string(), z.unknown()), use: z.string().optional(), output: z.string().optional() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type HttpTemplate = z.infer<typeof httpTemplate>;

/** The workflow's status from its steps' and its decided outcome. */
export function workflowStatus(outcome: "failed" | "cancelled" | null, ended: boolean, steps: { status: JobStatus }[]): WorkflowStatus {
  if (ended) return outcome ?? "completed";
  if (steps.some((s) => s.status !== "queued")) return "processing";
  return "queued";
}

/** The workflow's progress: the steps' mean. */
export function workflowProgress(steps: Pick<HttpJob, "progress" | "status">[]): number {
  if (steps.length === 0) return 0;
  const sum = steps.reduce((total, s) => total + (s.status === "completed" ? 100 : (s.progress ?? 0)), 0);
  return Math.floor(sum / steps.length);
}

/** GET /v1/workflows and /v1/templates: a page, newest first (cursor pagination as jobs'). */
export const listPageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page."),
  cursor: z.string().max(512).optional().describe("`nextCursor` of the previous page (opaque)."),
});

/** POST /v1/workflows' answer: the workflow as created, each step's job id. */
export const createdWorkflow = z.object({
  id: z.string(),
  status: z.literal("queued"),
  createdAt: z.string(),
  steps: z.record(z.string(), z.object({ jobId: z.string() })),
});

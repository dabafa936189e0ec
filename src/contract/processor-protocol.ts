// The HTTP protocol between the job runner (Worker) and the processor (container or
// local Node process), as zod schemas both ends parse. One processor job is one attempt
// of one API job. Every request and answer, both ways, carries PROTOCOL_HEADER.
//
//   POST   /jobs                    processorJobRequest → 202 processorJobState (idempotent on id),
//                                     400 processorError (with `issues`), 409 protocolMismatch
//   GET    /jobs/:id                → 200 processorJobState | 404 processorError when the processor does not know it
//   GET    /jobs/:id/outputs/:name  → the output's bytes, with Content-Type and Content-Length
//                                     (only for outputs the processor could not upload itself)
//   POST   /jobs/:id/cancel         → 200 processorJobState (the cancel answer); kills its processes
//   DELETE /jobs/:id                → 204; removes its files
//   GET    /status                  → 200 processorStatus; with ?checkPushPath=<the Worker's event URL>,
//                                     its push path to that URL checked first
//
// And the other way, pushed while an attempt runs (docs/architecture.md: events):
//
//   POST   <callback.url>           processorJobState, `authorization: Bearer <callback.token>`
//     progress at most once per PROGRESS_REPORT_MS, a heartbeat every HEARTBEAT_MS while
//     nothing else was sent, and the final state (completed, failed, cancelled) at once.
//     → 204 taken, 409 the runner no longer holds the attempt (or protocolMismatch), 400/401/413.
//
//   PUT    <callback.outputs>/<name> the output's bytes, before the attempt reports `completed`;
//     the same token, Content-Length and Content-Type required → 201 stored in R2, 409 when
//     the runner no longer holds the attempt (or protocolMismatch), 400/401/411/413/415 when
//     the upload is wrong.
import { z } from "zod";
import { jobError } from "./job.ts";
import { JOB_TYPES, jobTypes, type JobParams } from "./registry.ts";
import type { StoredResult } from "./stored-result.ts";
import { uploadRefId } from "./uploads.ts";

/**
 * The version of this protocol. Raise it with any change one end of the previous version
 * would misread. Compatibility is exact match for now (`speaksOurProtocol`): a Worker and
 * a processor of different versions refuse each other's requests (409 protocolMismatch),
 * and the runner takes such a processor as an unreachable one: the start is sent again
 * at each alarm, and after TUNABLES.runner.maxCallFailures the attempt is lost and
 * retried like any other. A processor that is replaced meanwhile takes the start.
 */
export const PROCESSOR_PROTOCOL_VERSION = 1;

/** The header every request and answer of the protocol carries, both ways: the sender's PROCESSOR_PROTOCOL_VERSION. */
export const PROTOCOL_HEADER = "media-jobs-protocol";

/** The version a PROTOCOL_HEADER value names; null when it is absent (a sender older than versioning) or not a version. */
export function protocolVersionOf(header: string | null | undefined): number | null {
  return header && /^[0-9]{1,6}$/.test(header) ? Number(header) : null;
}

/** Whether the other end's version (protocolVersionOf) can be talked to: the same version, exactly. */
export function speaksOurProtocol(theirs: number | null): boolean {
  return theirs === PROCESSOR_PROTOCOL_VERSION;
}

/**
 * The answer to a request of another protocol version, 409 from either end: the
 * processor to a start, the Worker to a pushed event or an uploaded output. `processor`
 * and `worker` are each end's version, null for one that sent none.
 */
export const protocolMismatch = z.object({
  error: z.literal("protocol_mismatch"),
  message: z.string(),
  processor: z.int().nullable(),
  worker: z.int().nullable(),
});
export type ProtocolMismatch = z.infer<typeof protocolMismatch>;

export function protocolMismatchBody(versions: { processor: number | null; worker: number | null }): ProtocolMismatch {
  const name = (v: number | null) => (v === null ? "none" : String(v));
  return { error: "protocol_mismatch", message: `processor protocol ${name(versions.processor)}, Worker protocol ${name(versions.worker)}: the versions must be equal`, ...versions };
}

/** The processor's other refusals: 400 with the schema's issues, 404 an unknown job or output. */
export const processorError = z.object({
  error: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ProcessorError = z.infer<typeof processorError>;

const httpUrl = z.string().refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "must be an http(s) URL");

/** The Worker's route for pushed events, under its public origin (locally) or the container's outbound host. */
export const PROCESSOR_EVENTS_PATH = "/internal/processor-events";

/** The Worker's route for uploaded outputs: `PUT <PROCESSOR_OUTPUTS_PATH>/<attempt id>/<name>`. */
export const PROCESSOR_OUTPUTS_PATH = "/internal/processor-outputs";

/**
 * Where the processor pushes an attempt's events. The token is the attempt's own
 * (HMAC-SHA256 of the attempt id under PROCESSOR_TOKEN), so it is good for nothing else.
 * `outputs` is where each output is PUT (`<outputs>/<name>`) with the same token, straight
 * into R2. Without a callback the runner learns the state only by asking (GET /jobs/:id).
 */
export const processorCallback = z.object({ url: httpUrl, token: z.string().min(1), outputs: httpUrl });

/**
 * The start of an attempt. `params` are checked against the type's own schema, as the API
 * did (the processor stays safe on its own). `inputUrl`: when `params.url` is
 * `upload:upl_…`, a short-lived signed link to the upload on the Worker's own origin,
 * fetched instead. Only the runner sets it (the processor's API is behind its token), so it
 * is fetched without the public-address rules but never redirected: a user's URL can
 * neither become one nor lead to one. It comes with an `upload:` input, and only then.
 */
export const processorJobRequest = z
  .object({
    id: z.string().min(1),
    type: z.enum(JOB_TYPES),
    params: z.unknown(),
    inputUrl: z.string().refine((u) => URL.canParse(u), "must be a URL").optional(),
    callback: processorCallback.optional(),
  })
  .transform((body, ctx) => {
    const params = jobTypes[body.type].params.safeParse(body.params);
    if (!params.success) {
      for (const issue of params.error.issues) ctx.addIssue({ code: "custom", path: ["params", ...issue.path], message: issue.message });
      return z.NEVER;
    }
    const url = (params.data as { url?: unknown }).url;
    if ((typeof url === "string" && uploadRefId(url) !== undefined) !== (body.inputUrl !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["inputUrl"], message: "inputUrl is required with an upload: input, and refused otherwise" });
      return z.NEVER;
    }
    return { ...body, params: params.data as JobParams };
  });
export type ProcessorJobRequest = z.output<typeof processorJobRequest>;

/**
 * An output's name as the processors make them (`image.webp`, `frame-03.png`): a plain
 * file name with one extension, so it can be neither a path nor a hidden file in R2 keys
 * (`outputs/<jobId>/<name>`) or download links.
 */
export function isOutputName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.[A-Za-z0-9]{1,10}$/.test(name);
}

/** The types an output may be stored with: what the job types produce. */
export const OUTPUT_CONTENT_TYPES: readonly string[] = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/avif",
  "video/mp4",
  "video/webm",
  "audio/mpeg",
  "application/pdf",
];

/** The largest output stored: R2's limit for one PUT (5 GiB less 5 MiB, developers.cloudflare.com/r2/platform/limits). */
export const MAX_OUTPUT_BYTES = 5 * 1024 ** 3 - 5 * 1024 ** 2;

export const processorOutput = z.object({
  /** File name, unique within the job; result fields named `url` hold these names. */
  name: z.string().refine(isOutputName, "must be a plain file name with one extension"),
  contentType: z.string().refine((t) => OUTPUT_CONTENT_TYPES.includes(t), "must be a type a job produces"),
  size: z.int().min(0).max(MAX_OUTPUT_BYTES),
});
export type ProcessorOutput = z.infer<typeof processorOutput>;

const ms = z.number().min(0).optional();

/** Where an attempt's time went on the processor, in milliseconds; absent until measured. */
export const processorTimings = z.object({
  /** Downloading (or reading) the input. */
  fetchInputMs: ms,
  /** Running the job type's tools, up to its outputs on disk. */
  processMs: ms,
  /** Uploading the outputs to the callback's `outputs` (R2), all of them. */
  storeOutputMs: ms,
});
export type ProcessorTimings = z.infer<typeof processorTimings>;

const progress = z.number().min(0).max(100);

/**
 * A completed attempt's result: an object here, checked against its job type's result
 * schema when it is collected (src/runner/outputs.ts, parseStoredResult), where the type is known.
 */
const storedResult = z.custom<StoredResult>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must be an object");

/**
 * Whether the processor's events and uploads reach the runner: it checks the callback's
 * origin (a request any answer to which will do) when it first sees it, when a push fails,
 * and again while it is broken (container/src/push-path.ts). `checkedAt` is epoch ms.
 * Optional in the protocol: a processor that does not report it is taken as one that pushes.
 */
export const pushPath = z.object({ ok: z.boolean(), error: z.string().optional(), checkedAt: z.number() });
export type PushPath = z.infer<typeof pushPath>;

/**
 * An attempt's state: the answer to a start, a GET or a cancel, and the body of every
 * pushed event. A running state answered (not pushed) may say whether the push path works:
 * when it does not, the runner polls the attempt rather than wait for its events.
 */
export const processorJobState = z.discriminatedUnion("state", [
  z.object({ id: z.string().min(1), state: z.literal("running"), progress, pushPath: pushPath.optional() }),
  z.object({ id: z.string().min(1), state: z.literal("completed"), progress: z.literal(100), result: storedResult, outputs: z.array(processorOutput), timings: processorTimings.optional() }),
  z.object({ id: z.string().min(1), state: z.literal("failed"), progress, error: jobError, timings: processorTimings.optional() }),
  z.object({ id: z.string().min(1), state: z.literal("cancelled"), progress }),
]);
export type ProcessorJobState = z.infer<typeof processorJobState>;

/**
 * GET /status's query naming the Worker's event URL (http(s), path PROCESSOR_EVENTS_PATH):
 * the processor checks its route there before it answers, and reports it as `pushPath`.
 */
export const PUSH_PATH_QUERY = "checkPushPath";

/** Whether `url` may be checked as the Worker's event URL: http(s), the events path, nothing more. */
export function isEventsUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return /^https?:$/.test(parsed.protocol) && parsed.pathname === PROCESSOR_EVENTS_PATH && !parsed.search && !parsed.username && !parsed.password;
}

/** GET /status: the processor's protocol version, how many attempts it runs, the job types it has tools for, and their versions. */
export const processorStatus = z.object({
  ok: z.literal(true),
  protocol: z.int(),
  running: z.int().min(0),
  jobTypes: z.array(z.enum(JOB_TYPES)),
  tools: z.record(z.string(), z.string().nullable()),
  /** Whether events reach the runner, once the processor has a callback origin to check (pushPath). */
  pushPath: pushPath.optional(),
});
export type ProcessorStatus = z.infer<typeof processorStatus>;

/** A schema's issues as a processorError's `issues`, each path dotted (`params.width`). */
export function issuesOf(error: z.ZodError): NonNullable<ProcessorError["issues"]> {
  return error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(body)", message: i.message }));
}

/** The same issues as one line for a log: `path: message; …`. */
export function describeIssues(error: z.ZodError): string {
  return issuesOf(error)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
}

// The HTTP protocol between the job runner (Worker) and the processor (container or
// local Node process), as zod schemas both ends parse. One processor job is one attempt
// of one API job. Every request and answer, both ways, carries PROTOCOL_HEADER.
//
//   POST   /jobs                    processorJobRequest → 202 processorJobState (idempotent on id and
//                                     its token: 403 when an existing id comes with another token),
//                                     400 processorError (with `issues`), 409 protocolMismatch,
//                                     503 processorDraining for a new id once the processor drains
//   GET    /jobs/:id                → 200 processorJobState | 404 processorError when the processor does not know it
//   GET    /jobs/:id/outputs/:name  → the output's bytes, with Content-Type and Content-Length
//                                     (only for outputs the processor could not upload itself)
//   POST   /jobs/:id/cancel         → 200 processorJobState (the cancel answer); kills its processes
//   DELETE /jobs/:id                → 204; removes its files
//   GET    /status                  → 200 processorStatus; with ?checkPushPath=<the Worker's event URL>,
//                                     its push path to that URL checked first
//
// Every /jobs/:id route carries the attempt's own token (its callback.token) in
// ATTEMPT_TOKEN_HEADER and answers 404 without it, as for an unknown attempt: a process
// inside the container cannot act on another attempt (docs/security.md). A processor
// reached over the network (PROCESSOR_URL: local development, tests) may also require
// `authorization: Bearer <PROCESSOR_TOKEN>` on POST /jobs and GET /status; in a container
// it has no such secret (its API is reached only through the Durable Object).
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
//
//   POST   <callback.url with PROCESSOR_PLAYABLE_PATH for PROCESSOR_EVENTS_PATH>  processorPlayable, the same token, once
//     the outputs a player needs first are uploaded (videoAdaptive's top rendition and a master
//     playlist naming only it): the job is announced `playable` → 204, 409 the runner no
//     longer holds the attempt, 422 the playlist is not in R2 from this attempt, 400/401.
//
//   GET    <callback.input>         with an `upload:` (or a workflow step's `output:`) input only: its bytes from R2,
//     the same token; `Range: bytes=…` answered 206 with Content-Range (416 when unsatisfiable).
//   GET    <callback.input>/<n>     a stitch (contract/fanout.ts): its n-th part, chunks in order then the audio (then, for a
//                                     videoAdaptive whose plan says readTop, its copied top rendition); or the
//                                     n-th of a job's other inputs when it is an upload (videoConcat's append[n-1]).
//
// The Worker checks the token against the attempt its runner holds (constant time) and, in
// production, that the request comes from the container of the attempt's seat.
import { z } from "zod";
import { FANNING_TYPES, fanoutOffer, fanoutPlan, jobPart } from "./fanout.ts";
import { jobError } from "./job.ts";
import { JOB_TYPES, jobTypes, type JobParams } from "./registry.ts";
import type { StoredResult } from "./stored-result.ts";
import { uploadRefId } from "./uploads.ts";
import { parseOutputRef } from "./workflow.ts";

/**
 * The version of this protocol. Raise it with any change one end of the previous version
 * would misread. Compatibility is exact match for now (`speaksOurProtocol`): a Worker and
 * a processor of different versions refuse each other's requests (409 protocolMismatch).
 * A refused start is seated on another instance, uncharged, for up to
 * TUNABLES.runner.refusedStartDeadlineMs (an old container during a rollout); any other
 * call answered in another version counts as a failed call (JobRunner #sendStart).
 */
export const PROCESSOR_PROTOCOL_VERSION = 3;

/** The header the runner names the attempt's own token in, on every /jobs/:id call and on a start. */
export const ATTEMPT_TOKEN_HEADER = "media-jobs-attempt-token";

/** An attempt's token: 32 random bytes or more, base64url (src/runner/credentials.ts newAttemptToken). */
export const ATTEMPT_TOKEN = /^[A-Za-z0-9_-]{43,128}$/;

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

/**
 * 503 to POST /jobs of a new attempt while the processor drains (it got SIGTERM and exits once
 * its running attempts end). Not a failed call: the runner asks the pool for a seat on
 * another instance (src/runner/job-runner.ts), and the pool seats nothing more here.
 */
export const processorDraining = z.object({ error: z.literal("draining"), message: z.string() });
export type ProcessorDraining = z.infer<typeof processorDraining>;

export const PROCESSOR_DRAINING_BODY: ProcessorDraining = { error: "draining", message: "this processor is shutting down and starts no new job; start it on another instance" };

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
 * The Worker's route where an attempt announces its job playable (processorPlayable): its
 * callback's `url` with this path for PROCESSOR_EVENTS_PATH, so a processor finds it without
 * a field of the start.
 */
export const PROCESSOR_PLAYABLE_PATH = "/internal/processor-playable";

/** The Worker's route an attempt reads its uploaded input from: `GET <PROCESSOR_INPUTS_PATH>/<attempt id>`. */
export const PROCESSOR_INPUTS_PATH = "/internal/processor-inputs";

/**
 * Where the processor pushes an attempt's events. The token is the attempt's own, random,
 * made by its runner when the attempt began and kept in its state (src/runner/attempt.ts):
 * good for this attempt only, and the processor also asks for it on the attempt's routes.
 * `outputs` is where each output is PUT (`<outputs>/<name>`) with the same token, straight
 * into R2. `input`, with an `upload:` input and only then, is where the upload is read
 * from R2 with the same token. All three are on the Worker's callback origin (locally its
 * PUBLIC_BASE_URL, in production the container's outbound host): only the runner sets them
 * (the start comes from it), so they are fetched without the public-address rules but
 * never redirected; a user's URL can neither become one nor lead to one.
 */
export const processorCallback = z.object({
  url: httpUrl,
  token: z.string().regex(ATTEMPT_TOKEN, "must be an attempt token (43 to 128 base64url characters)"),
  outputs: httpUrl,
  input: httpUrl.optional(),
});

/**
 * The start of an attempt. `params` are checked against the type's own schema, as the API
 * did (the processor stays safe on its own). The callback carries the attempt's token.
 */
export const processorJobRequest = z
  .object({
    id: z.string().min(1),
    type: z.enum(JOB_TYPES),
    params: z.unknown(),
    callback: processorCallback,
    /** A compressVideo or videoAdaptive attempt that may split its encode across seats (contract/fanout.ts); absent: it encodes alone. */
    fanout: fanoutOffer.optional(),
    /** The part of a fanned-out job this attempt does; absent: the whole job. */
    part: jobPart.optional(),
  })
  .transform((body, ctx) => {
    if ((body.fanout || body.part) && !(FANNING_TYPES as readonly string[]).includes(body.type)) {
      ctx.addIssue({ code: "custom", path: [body.part ? "part" : "fanout"], message: `only ${FANNING_TYPES.join(" and ")} fan out` });
      return z.NEVER;
    }
    // A workflow step's input may be another job's output (`output:…`, workflow.ts): internal,
    // read through callback.input; the type's schema checks the rest with a stand-in url.
    const given = body.params as { url?: unknown } | undefined;
    const internal = typeof given?.url === "string" && parseOutputRef(given.url) !== undefined ? given.url : undefined;
    const params = jobTypes[body.type].params.safeParse(internal ? { ...given, url: "https://internal.invalid/input" } : body.params);
    if (!params.success) {
      for (const issue of params.error.issues) ctx.addIssue({ code: "custom", path: ["params", ...issue.path], message: issue.message });
      return z.NEVER;
    }
    const url = internal ?? (params.data as { url?: unknown }).url;
    // A stitch reads its chunks through the runner, whatever the job's input; so are other inputs that are uploads (videoConcat's `append`).
    const throughRunner = body.part?.role === "stitch" || (typeof url === "string" && readsThroughRunner(url)) || otherUploads(params.data).length > 0;
    if (throughRunner !== (body.callback.input !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["callback", "input"], message: "callback.input is required with an upload: or output: input or a stitch, and refused otherwise" });
      return z.NEVER;
    }
    return { ...body, params: { ...(params.data as object), url } as JobParams };
  });

/** A job's other inputs that are uploads (videoConcat's `append`), each with its place: `<callback.input>/<place>` serves it (1 for the first). */
export function otherUploads(params: unknown): { place: number; url: string }[] {
  const append = (params as { append?: unknown } | undefined)?.append;
  return Array.isArray(append) ? append.flatMap((url, i) => (typeof url === "string" && uploadRefId(url) !== undefined ? [{ place: i + 1, url }] : [])) : [];
}

/** An input the processor reads through the runner's input route: an upload, or a workflow step's output of another job. */
export function readsThroughRunner(url: string): boolean {
  return uploadRefId(url) !== undefined || parseOutputRef(url) !== undefined;
}
export type ProcessorJobRequest = z.output<typeof processorJobRequest>;

/**
 * An output's name as the processors make them (`image.webp`, `frame-03.png`): a plain
 * file name with one extension, so it can be neither a path nor a hidden file in R2 keys
 * (`outputs/<jobId>/<name>`) or download links. A name may sit in one folder
 * (`stream/master.m3u8`): the files of a folder refer to each other by relative URIs (an
 * HLS playlist to its segments, a WebVTT file to its sprite), and a link to one of them is
 * signed for the whole folder so those URIs resolve (files/signing.ts).
 */
export function isOutputName(name: string): boolean {
  return /^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,49}\/)?[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.[A-Za-z0-9]{1,10}$/.test(name);
}

/** The types an output may be stored with: what the job types produce. */
export const OUTPUT_CONTENT_TYPES: readonly string[] = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/avif",
  "image/gif",
  "video/mp4",
  "video/webm",
  "audio/mp4",
  "audio/mpeg",
  "audio/ogg",
  "audio/flac",
  "audio/wav",
  "application/pdf",
  "application/vnd.apple.mpegurl",
  "application/dash+xml",
  "text/vtt",
  "application/json",
];

/** The largest output stored: R2's limit for one PUT (5 GiB less 5 MiB, developers.cloudflare.com/r2/platform/limits). */
export const MAX_OUTPUT_BYTES = 5 * 1024 ** 3 - 5 * 1024 ** 2;

export const processorOutput = z.object({
  /** File name, unique within the job; result fields named `url` hold these names. */
  name: z.string().refine(isOutputName, "must be a plain file name with one extension, in at most one folder"),
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
  /**
   * `plan`: an attempt offered a fan-out split the job instead of encoding it (its result is
   * `{}`); the runner runs the parts. Its outputs are what it uploaded before (videoAdaptive's
   * copied top rendition, published): they stay the job's, and the stitch's result names them.
   */
  z.object({ id: z.string().min(1), state: z.literal("completed"), progress: z.literal(100), result: storedResult, outputs: z.array(processorOutput), timings: processorTimings.optional(), plan: fanoutPlan.optional() }),
  z.object({ id: z.string().min(1), state: z.literal("failed"), progress, error: jobError, timings: processorTimings.optional() }),
  /**
   * `handedBack`: the processor stopped the attempt unasked because it is shutting down (a
   * drain's deadline, container/src/jobs.ts `drain`); the runner starts it again elsewhere
   * without charging an attempt (src/runner/attempt-end.ts). An unasked cancel without it is
   * charged like a lost attempt (src/runner/job-runner.ts `#recordEnd`).
   */
  z.object({ id: z.string().min(1), state: z.literal("cancelled"), progress, handedBack: z.literal(true).optional() }),
]);
export type ProcessorJobState = z.infer<typeof processorJobState>;

/**
 * An attempt's announcement that its job is playable before it completes: `url` names the
 * master playlist, already uploaded with every file it names (the outputs stay as they are
 * uploaded; the playlist may be uploaded again naming more renditions). Sent once an attempt.
 */
export const processorPlayable = z.object({
  id: z.string().min(1),
  url: z.string().refine(isOutputName, "must be an output name"),
});
export type ProcessorPlayable = z.infer<typeof processorPlayable>;

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
  /** True once the processor got SIGTERM: it finishes what runs and starts nothing new (POST /jobs answers 503 processorDraining). Optional, absent from an older processor. */
  draining: z.boolean().optional(),
  /** Whether events reach the runner, once the processor has a callback origin to check (pushPath). */
  pushPath: pushPath.optional(),
  /** Whether each attempt's tools run under a uid of their own, and why not (container/src/isolation.ts). Optional, absent from an older processor. */
  isolation: z.object({ on: z.boolean(), reason: z.string().optional() }).optional(),
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

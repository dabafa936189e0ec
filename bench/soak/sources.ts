// What the soak submits. Each source is one kind of job and the end it must reach. The
// soak draws sources by weight, deterministically (job n always gets the same one), from
// the normal mix plus any extra sources registered here.
//
// The extra sources (issue 18; `--damaged-share`, a tenth of the jobs by default) are every
// file of the damaged-and-unusual corpus (test/support/corpus.ts), each through the job its
// case names and judged by the case's expected outcome; hostile creates the API must refuse
// with a given status, error code and field path (they create no job); and an input that
// answers 404.
import type { ApiErrorCode } from "../../src/contract/errors.ts";
import type { JobErrorCode } from "../../src/contract/job.ts";
import { httpJobType } from "../../src/contract/names.ts";
import { CORPUS, type Outcome } from "../../test/support/corpus.ts";
import type { SoakInputs } from "../media.ts";

export type Expectation =
  | { completed: true }
  | { failed: readonly JobErrorCode[] }
  /** A corpus case's outcome: its failure code and message, or a result containing these fields. */
  | { corpus: Outcome }
  /** Refused at creation: this status and error code, and `path` among the error's details. */
  | { rejected: number; code: ApiErrorCode; path?: string };

export interface SourceContext {
  inputs: SoakInputs;
  /** URL of a file in bench/.media/ on the soak's media server. */
  url(file: string): string;
  /** A URL on the media server that answers 404. */
  missingUrl: string;
  /** URL of a corpus file (by its case's name), served with the case's content type. */
  corpusUrl(name: string): string;
}

/** A create as sent: the Content-Type and the body's text. */
export interface Request {
  contentType: string;
  body: string;
}

export interface JobSource {
  name: string;
  /** Relative share within its group (normal or extra). */
  weight: number;
  type: string;
  input(ctx: SourceContext): string;
  options?: Record<string, unknown>;
  expect: Expectation;
  /**
   * A hostile create: what to send instead of the JSON of type, input, options and webhook
   * (given as `body`, so that only the hostile part differs).
   */
  hostile?(body: Record<string, unknown>): Request;
}

export const NORMAL_SOURCES: JobSource[] = [
  { name: "compress-image", weight: 30, type: "compress-image", input: (c) => c.url(c.inputs.image), options: { quality: 70 }, expect: { completed: true } },
  { name: "compress-image webp", weight: 10, type: "compress-image", input: (c) => c.url(c.inputs.image), options: { format: "webp" }, expect: { completed: true } },
  { name: "compress-pdf", weight: 15, type: "compress-pdf", input: (c) => c.url(c.inputs.pdf), expect: { completed: true } },
  { name: "video-thumbnail", weight: 15, type: "video-thumbnail", input: (c) => c.url(c.inputs.clip), expect: { completed: true } },
  { name: "compress-video", weight: 10, type: "compress-video", input: (c) => c.url(c.inputs.clip), expect: { completed: true } },
  { name: "extract-audio", weight: 10, type: "extract-audio", input: (c) => c.url(c.inputs.clip), expect: { completed: true } },
  {
    name: "video-extraction",
    weight: 10,
    type: "video-extraction",
    input: (c) => c.url(c.inputs.clip),
    options: { frames: { mode: "count", count: 2 } },
    expect: { completed: true },
  },
];

const json = (body: unknown): Request => ({ contentType: "application/json", body: JSON.stringify(body) });

/** Damaged media and hostile requests; see the note at the top. Hostile requests weigh 3 each against 1 per corpus file, so that a short run meets some. */
export const EXTRA_SOURCES: JobSource[] = [
  { name: "input missing (404)", weight: 1, type: "compress-image", input: (c) => c.missingUrl, expect: { failed: ["input_unreachable"] } },
  ...CORPUS.map((c): JobSource => ({ name: `corpus ${c.name}`, weight: 1, type: httpJobType(c.type), input: (ctx) => ctx.corpusUrl(c.name), options: c.params, expect: { corpus: c.expected } })),
  {
    name: "hostile: JSON sent as text/plain",
    weight: 3,
    type: "compress-image",
    input: (c) => c.url(c.inputs.image),
    expect: { rejected: 415, code: "unsupported_media_type" },
    hostile: (body) => ({ contentType: "text/plain", body: JSON.stringify(body) }),
  },
  {
    name: "hostile: quality 0",
    weight: 3,
    type: "compress-image",
    input: (c) => c.url(c.inputs.image),
    expect: { rejected: 400, code: "invalid_input", path: "options.quality" },
    hostile: (body) => json({ ...body, options: { quality: 0 } }),
  },
  {
    name: "hostile: unknown type",
    weight: 3,
    type: "compress-image",
    input: (c) => c.url(c.inputs.image),
    expect: { rejected: 400, code: "invalid_input", path: "type" },
    hostile: (body) => json({ ...body, type: "resize-image" }),
  },
  {
    name: "hostile: body over 64 KiB",
    weight: 3,
    type: "compress-image",
    input: (c) => c.url(c.inputs.image),
    expect: { rejected: 413, code: "payload_too_large" },
    hostile: (body) => json({ ...body, options: { note: "x".repeat(70_000) } }),
  },
];

/** The source of job n: an extra one for about `extraShare` of the jobs, else a normal one. */
export function sourceFor(n: number, extraShare: number): JobSource {
  // A fixed low-discrepancy sequence, so shares hold for short runs too.
  const u = (n * 0.6180339887498949) % 1;
  const group = EXTRA_SOURCES.length > 0 && u < extraShare ? EXTRA_SOURCES : NORMAL_SOURCES;
  const v = (n * 0.7548776662466927) % 1;
  const total = group.reduce((sum, s) => sum + s.weight, 0);
  let at = v * total;
  for (const source of group) {
    if (at < source.weight) return source;
    at -= source.weight;
  }
  return group.at(-1)!;
}

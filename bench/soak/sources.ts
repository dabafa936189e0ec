// What the soak submits. Each source is one kind of job and the end it must reach. The
// soak draws sources by weight, deterministically (job n always gets the same one), from
// the normal mix plus any extra sources registered here.
//
// Extension point (issue 18's corpus of damaged media and hostile requests): push onto
// EXTRA_SOURCES sources whose `expect` names the failure codes they may end with, and run
// with `--damaged-share 0.1` to give them a tenth of the jobs. A source whose job is refused
// at creation (a 4xx) expects `{ rejected: status }` instead; it then creates no job.
import type { JobErrorCode } from "../../src/contract/job.ts";
import type { SoakInputs } from "../media.ts";

export type Expectation =
  | { completed: true }
  | { failed: readonly JobErrorCode[] }
  | { rejected: number };

export interface SourceContext {
  inputs: SoakInputs;
  /** URL of a file in bench/.media/ on the soak's media server. */
  url(file: string): string;
  /** A URL on the media server that answers 404. */
  missingUrl: string;
}

export interface JobSource {
  name: string;
  /** Relative share within its group (normal or extra). */
  weight: number;
  type: string;
  input(ctx: SourceContext): string;
  options?: Record<string, unknown>;
  expect: Expectation;
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

/** Damaged media and hostile requests; see the note at the top. */
export const EXTRA_SOURCES: JobSource[] = [
  { name: "input missing (404)", weight: 1, type: "compress-image", input: (c) => c.missingUrl, expect: { failed: ["input_unreachable"] } },
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

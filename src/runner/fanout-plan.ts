// Chunked encoding across seats (docs/fanout.md): what a fanned-out job's parts' rows mean,
// as pure rules: what the job does next, the fan-out its timings
// show, and where the stitch reads each part. src/runner/fanout.ts reads and drops the rows.
import { PART_OUTPUTS, partJobId, type FanoutTimings, type JobPart } from "../contract/fanout.ts";
import type { JobError } from "../contract/job.ts";
import type { JobRow } from "../db/schema.ts";
import { outputKey } from "../files/r2-keys.ts";

/** Whether a part's row is at its end. */
export const ended = (row: JobRow) => row.status === "completed" || row.status === "failed" || row.status === "cancelled";

/** What the parent does next, from its parts' rows: fail with a part's error, stitch, or start the parts `start` (none while all it may run are running). */
export type PartsDecision = { fail: JobError } | { stitch: true } | { start: string[]; done: number };

export function decideParts(rows: JobRow[], started: ReadonlySet<string>, seats: number): PartsDecision {
  const failed = rows.find((row) => row.status === "failed" || row.status === "cancelled");
  if (failed) {
    const what = failed.part?.role === "video" ? `chunk ${failed.part.index + 1} of ${rows.filter((r) => r.part?.role === "video").length}` : "the audio";
    if (failed.status === "cancelled") return { fail: { code: "processing_interrupted", message: `encoding ${what} was stopped before it ended; create the job again` } };
    return { fail: { code: (failed.errorCode ?? "processing_failed") as JobError["code"], message: `encoding ${what}: ${failed.errorMessage ?? "failed"}` } };
  }
  const done = rows.filter((row) => row.status === "completed").length;
  if (rows.length > 0 && done === rows.length) return { stitch: true };
  const running = rows.filter((row) => !ended(row) && (row.status === "processing" || started.has(row.id))).length;
  const waiting = rows.filter((row) => row.status === "queued" && !started.has(row.id));
  return { start: waiting.slice(0, Math.max(0, seats - running)).map((row) => row.id), done };
}

/** The fan-out as the parts' rows tell it (their first attempt's start to their end); `stitchMs` once the stitch ran. */
export function fanoutTimings(rows: JobRow[], stitchMs: number | null = null): FanoutTimings {
  const spans = rows.filter((row) => row.startedAt !== null && row.completedAt !== null).map((row) => ({ row, from: row.startedAt!, to: row.completedAt! }));
  const chunks = spans.filter((s) => s.row.part?.role === "video");
  // The most parts running at once: the spans' starts and ends in order.
  const edges = spans.flatMap((s) => [{ at: s.from, d: 1 }, { at: s.to, d: -1 }]).sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let seats = 0;
  for (const edge of edges) seats = Math.max(seats, (now += edge.d));
  return {
    chunks: rows.filter((row) => row.part?.role === "video").length,
    seats,
    longestChunkMs: Math.max(0, ...chunks.map((s) => s.to - s.from)),
    partsMs: spans.length ? Math.max(...spans.map((s) => s.to)) - Math.min(...spans.map((s) => s.from)) : 0,
    stitchMs: stitchMs === null ? null : Math.max(0, Math.round(stitchMs)),
  };
}

/**
 * The R2 key of the stitch's n-th part: the chunks in order, then the audio, then (a
 * videoAdaptive plan with `readTop`) the job's own copied top rendition; undefined past them.
 */
export function stitchInputKey(parentId: string, part: Extract<JobPart, { role: "stitch" }>, n: number): string | undefined {
  if (n < part.videoParts) return outputKey(partJobId(parentId, { role: "video", index: n }), PART_OUTPUTS.video);
  const audio = part.audio ? 1 : 0;
  if (n === part.videoParts && audio) return outputKey(partJobId(parentId, { role: "audio" }), PART_OUTPUTS.audio);
  const top = part.ladder?.readTop ? part.ladder.top : null;
  if (n === part.videoParts + audio && top) return outputKey(parentId, `stream/${top.name}.mp4`);
  return undefined;
}


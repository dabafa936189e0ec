// Chunked encoding (docs/fanout.md): a long compressVideo, or the renditions of a long
// videoAdaptive, run on several seats of the pool. The job's first attempt probes the input
// and answers with a plan instead of encoding (videoAdaptive's first publishes its copied top
// rendition before); the runner then runs each chunk as a part of the job (a hidden job of
// its own, with its own attempts and credentials), the audio as one more, and last a stitch
// attempt of the job itself that joins them and checks the join. These are the shapes the
// runner and the processor exchange for it (src/contract/processor-protocol.ts carries them).
import { z } from "zod";

/** The job types that may fan out. */
export const FANNING_TYPES = ["compressVideo", "videoAdaptive"] as const;

/**
 * Whether a job of `type` with these params may fan out (docs/fanout.md says why the others
 * stay on one seat): compressVideo with x264 or x265 at a constant quality into MP4; every
 * videoAdaptive (its renditions are H.264 at a bitrate, measured after the join).
 */
export function mayFanOut(type: string, params: { codec?: string; targetBitrate?: string; format?: string }): boolean {
  if (type === "videoAdaptive") return true;
  if (type !== "compressVideo") return false;
  return (params.codec === "h264" || params.codec === "h265") && params.targetBitrate === undefined && (params.format ?? "mp4") === "mp4";
}

/** A frame rate as the container states it (`30000/1001`): chunks are cut on frame numbers, so it is kept exact. */
export const frameRate = z.object({ num: z.int().min(1), den: z.int().min(1) });
export type FrameRate = z.infer<typeof frameRate>;

/**
 * What the runner offers a compressVideo attempt that may fan out (src/runner/fanout.ts
 * `fanoutOfferFor`): at most `seats` parts at once; only an input of `minSeconds` or more is
 * split, in chunks of about `chunkSeconds`, at least `chunksPerSeat` per seat and at most
 * `maxChunks`. Absent: the attempt encodes alone.
 */
export const fanoutOffer = z.object({
  seats: z.int().min(2).max(64),
  minSeconds: z.number().positive(),
  chunkSeconds: z.number().positive(),
  chunksPerSeat: z.int().min(1).max(16),
  maxChunks: z.int().min(2).max(256),
});
export type FanoutOffer = z.infer<typeof fanoutOffer>;

/** One chunk of the picture: `frames` frames from frame number `first` (0 is the input's first frame). */
export const chunk = z.object({ first: z.int().min(0), frames: z.int().min(1) });
export type Chunk = z.infer<typeof chunk>;

/** What the stitch states about the input, as a single-seat encode would from its own probe. */
export const fanoutSource = z.object({ size: z.int().min(0), width: z.int().min(0), height: z.int().min(0), duration: z.number().min(0) });

/**
 * The input's video stream as the plan probed it: a chunk needs no probe of its own (ffprobe
 * reads megabytes to find it). `offsetS`: how long after the container's start its first frame
 * comes (an MP4 whose sound starts first): a chunk's seek counts from there.
 */
export const planVideo = z.object({ index: z.int().min(0), width: z.int().min(1), height: z.int().min(1), offsetS: z.number().min(0).max(60).optional() });
export type PlanVideo = z.infer<typeof planVideo>;

/**
 * videoAdaptive's top rendition as its planning attempt copied it from the input, measured it
 * and published it (stream/<name>.m3u8 and .mp4): the stitch writes the master playlist with
 * these figures, and checks its own renditions' segments against `segments` (each one's
 * seconds), without reading the copy.
 */
export const copiedRendition = z.object({
  name: z.string().regex(/^\d{2,4}p$/),
  width: z.int().min(1),
  height: z.int().min(1),
  frameRate: z.number().min(0),
  codecs: z.string().max(64),
  bandwidth: z.int().min(0),
  averageBandwidth: z.int().min(0),
  mediaSize: z.int().min(0),
  playlistSize: z.int().min(0),
  segments: z.array(z.number().min(0)).min(1).max(4000),
});
export type CopiedRendition = z.infer<typeof copiedRendition>;

/**
 * What a videoAdaptive plan adds: the copied top rendition (null: every rendition is encoded
 * in the chunks), the frames each chunk after the first encodes before its own and the stitch
 * leaves out (`preroll`: a bitrate encode's rate control starts blind, and its first second
 * comes out blurred), whether the stitch reads the copy back (for the DASH manifest or the MP4
 * download, made from it), and what the result says of the source beyond `source`.
 */
export const ladderPlan = z.object({
  top: copiedRendition.nullable(),
  preroll: z.int().min(0).max(240),
  readTop: z.boolean(),
  format: z.string().max(64),
  hasAudio: z.boolean(),
});
export type LadderPlan = z.infer<typeof ladderPlan>;

/** The planning attempt's answer: the input's frames, its exact rate, its video stream, the chunks in order, and whether there is audio to encode; for videoAdaptive, `ladder`. */
export const fanoutPlan = z.object({
  frames: z.int().min(2),
  fps: frameRate,
  video: planVideo,
  chunks: z.array(chunk).min(2).max(256),
  audio: z.boolean(),
  source: fanoutSource,
  ladder: ladderPlan.optional(),
});
export type FanoutPlan = z.infer<typeof fanoutPlan>;

/**
 * The part of a fanned-out job an attempt does (stored with its row, sent with its start):
 * one chunk of video, the audio, or the stitch of `videoParts` chunks (and the audio) read
 * back through the runner's input route, in order.
 */
export const jobPart = z.discriminatedUnion("role", [
  z.object({
    role: z.literal("video"),
    index: z.int().min(0),
    chunk,
    fps: frameRate,
    video: planVideo,
    threads: z.int().min(1).max(64),
    /**
     * videoAdaptive: whether the top rendition was copied (the chunk then encodes the others,
     * with keyframes where the input has them), and the frames it encodes before its first
     * (the plan's `preroll`, none for the first chunk), which its output holds and the stitch leaves out.
     */
    ladder: z.object({ copiedTop: z.boolean(), preroll: z.int().min(0).max(240) }).optional(),
  }),
  z.object({ role: z.literal("audio") }),
  z.object({
    role: z.literal("stitch"),
    videoParts: z.int().min(2).max(256),
    audio: z.boolean(),
    frames: z.int().min(2),
    fps: frameRate,
    /** The frame number each chunk after the first begins at: a keyframe must be there. */
    seams: z.array(z.int().min(1)),
    /** How long after the input's start its picture starts (planVideo.offsetS): the joined picture starts there too. */
    offsetS: z.number().min(0).max(60).optional(),
    source: fanoutSource,
    ladder: ladderPlan.optional(),
  }),
]);
export type JobPart = z.infer<typeof jobPart>;

/** The stitch a plan comes to once every part completed: every chunk, the audio, and a keyframe where each chunk after the first begins. */
export function stitchPart(plan: FanoutPlan): Extract<JobPart, { role: "stitch" }> {
  return {
    role: "stitch",
    videoParts: plan.chunks.length,
    audio: plan.audio,
    frames: plan.frames,
    fps: plan.fps,
    seams: plan.chunks.slice(1).map((chunk) => chunk.first),
    ...(plan.video.offsetS ? { offsetS: plan.video.offsetS } : {}),
    source: plan.source,
    ...(plan.ladder ? { ladder: plan.ladder } : {}),
  };
}

/** The output each part writes: a chunk's video alone (videoAdaptive: one video stream per rendition), or the audio alone. */
export const PART_OUTPUTS = { video: "part.mp4", audio: "audio.m4a" } as const;

/** A part's job id: its parent's, then its role and number (`job_…-v03`, `job_…-a`); never a public job's (newId has no `-`). */
export function partJobId(parentId: string, part: { role: "video"; index: number } | { role: "audio" }): string {
  return part.role === "video" ? `${parentId}-v${String(part.index).padStart(2, "0")}` : `${parentId}-a`;
}

/** A fanned-out job's fan-out, for its `timings.fanout` (docs/api.md). */
export const fanoutTimings = z.object({
  chunks: z.int().min(0).describe("Chunks the video was cut into, each encoded on a seat of its own."),
  seats: z.int().min(0).describe("The most parts (chunks and the audio) that ran at once."),
  longestChunkMs: z.int().min(0).describe("The longest chunk's attempt, its start sent until its end recorded."),
  partsMs: z.int().min(0).describe("The first part's start until the last part's end."),
  stitchMs: z.int().min(0).nullable().describe("The stitch (joining and checking the chunks) on its processor; null until it ran."),
});
export type FanoutTimings = z.infer<typeof fanoutTimings>;

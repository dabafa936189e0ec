// videoAdaptive across seats (docs/fanout.md): the renditions of a long video encoded in
// chunks on several seats. The planning attempt has copied the top rendition (when it can)
// and published it playable; its plan cuts the video where segments begin. Each chunk
// encodes every other rendition of its frames (after a second of warm-up it leaves out) into
// one file, a video stream per rendition;
// the audio is encoded once; the stitch joins each rendition's chunks by copy into its HLS
// files, checks the join, and writes the master playlist, which only grows: the copy's line
// is as it was, the others are added.
import { join } from "node:path";
import { PART_OUTPUTS, type CopiedRendition, type FanoutOffer, type FanoutPlan, type JobPart } from "../../../src/contract/fanout.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { toolDirectory } from "../isolation.ts";
import { ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, type MediaProbe } from "../tools/ffprobe.ts";
import { runTool } from "../tools/spawn.ts";
import { prepareWatermark } from "../tools/watermark.ts";
import { assertMp4, checkJoin, chunkCount, chunkSeekS, frameGrid, planVideoOf, writeChunkList } from "./compress-video-parts.ts";
import { round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";
import { audioArgs, hlsOutput, keyframeArgs, ladderFor, ladderGraph, rungRateArgs, segmentGop, type Rung } from "../tools/ladder.ts";
import { finishLadder, measure, type MeasuredRung } from "./video-adaptive.ts";

type Params = JobParams<"videoAdaptive">;
type Part<R extends JobPart["role"]> = Extract<JobPart, { role: R }>;

const PLAYLIST_TYPE = "application/vnd.apple.mpegurl";

/** How far (in frames) a segment's start may sit from the rate's grid and still be taken as that frame. */
const GRID_SLACK = 0.1;

/**
 * The seconds of video a chunk after the first encodes before its own frames, then leaves out:
 * x264's one-pass bitrate control starts from a guess, and a chunk's first second came out
 * 6–10 dB below the single run's at 240p; with a second of warm-up the ±3 frames around a seam
 * are 0.7–1.5 dB below (bench section 9b), for 1/20 more encoding per 20 s chunk. Under a
 * segment (2 s at least), so the warm-up begins in the segment before the chunk's.
 */
const PREROLL_S = 1;

/**
 * The frame numbers where segments begin (after the first), or undefined when one does not
 * fall on a frame. A copied top rendition's segments begin where the muxer cut the copy, at
 * the input's keyframes: their starts are the sums of their lengths. Encoded, a segment begins
 * at the first frame at or past each multiple of the segment duration.
 */
export function segmentStarts(frames: number, fps: { num: number; den: number }, segmentS: number, copied: Pick<CopiedRendition, "segments"> | null): number[] | undefined {
  const perSecond = fps.num / fps.den;
  if (!copied) {
    const starts: number[] = [];
    for (let k = 1; ; k++) {
      const first = Math.ceil(k * segmentS * perSecond - 1e-6);
      if (first >= frames) return starts;
      starts.push(first);
    }
  }
  const starts: number[] = [];
  let seconds = 0;
  for (const duration of copied.segments.slice(0, -1)) {
    seconds += duration;
    const at = seconds * perSecond;
    if (Math.abs(at - Math.round(at)) > GRID_SLACK) return undefined;
    if (Math.round(at) < frames) starts.push(Math.round(at));
  }
  return starts;
}

/**
 * The fan-out of a videoAdaptive (frameGrid decides whether its frames can be cut), its
 * chunks each a run of whole segments, about `chunkSeconds` long and as many as the offer
 * asks; undefined when it encodes on one seat (too short, not constant-rate, segments off
 * the grid, fewer than two segments).
 */
export function planLadder(
  offer: FanoutOffer,
  probe: MediaProbe,
  params: Params,
  copied: MeasuredRung | null,
  inputSize: number,
): FanoutPlan | undefined {
  const grid = frameGrid(offer, probe);
  if (!grid) return undefined;
  const { frames, rate } = grid;
  const starts = segmentStarts(frames, rate, params.segmentDuration, copied && { segments: copied.segments.map((s) => s.duration) });
  if (!starts || starts.length === 0) return undefined;
  // Each chunk's first frame: the segment start nearest its even share of the frames, each used once.
  const count = chunkCount(offer, probe.duration);
  const cuts = new Set<number>();
  for (let i = 1; i < count; i++) {
    const wanted = (i * frames) / count;
    cuts.add(starts.reduce((best, s) => (Math.abs(s - wanted) < Math.abs(best - wanted) ? s : best)));
  }
  const firsts = [0, ...[...cuts].sort((a, b) => a - b)];
  const video = probe.video!;
  return {
    frames,
    fps: rate,
    video: planVideoOf(probe),
    chunks: firsts.map((first, i) => ({ first, frames: (firsts[i + 1] ?? frames) - first })),
    audio: params.audio && probe.audio !== null,
    source: { size: inputSize, width: video.width, height: video.height, duration: round3(probe.duration) },
    ladder: {
      top: copied && copiedRendition(copied),
      preroll: Math.round((PREROLL_S * rate.num) / rate.den),
      readTop: copied !== null && (params.dash || params.mp4),
      format: probe.format,
      hasAudio: probe.audio !== null,
    },
  };
}

/** A measured rendition as the plan carries it to the stitch. */
function copiedRendition(r: MeasuredRung): CopiedRendition {
  return {
    name: r.rung.name,
    width: r.width,
    height: r.height,
    frameRate: r.frameRate,
    codecs: r.codecs,
    bandwidth: r.bandwidth,
    averageBandwidth: r.averageBandwidth,
    mediaSize: r.mediaSize,
    playlistSize: r.playlistSize,
    segments: r.segments.map((s) => s.duration),
  };
}

/** The renditions the chunks encode: every rung, or all but the copied top. */
function encodedRungs(params: Params, video: { width: number; height: number }, copiedTop: boolean): Rung[] {
  const rungs = ladderFor(params, video);
  return copiedTop ? rungs.slice(0, -1) : rungs;
}

/**
 * One chunk's encode: its frames, after its preroll's, from an accurate seek half a frame
 * before the first, renumbered from 0 on the rate's grid, scaled to every encoded rung
 * (ladderGraph), each rung an MP4 of its own (`outputs`, in the rungs' order) at its bitrate,
 * in `threads` threads, joinable by copy (x264's stitchable), with the keyframes a single run
 * would place (keyframeArgs): the chunk's own first frame is one.
 */
export function chunkArgs(params: Params, part: Part<"video">, rungs: Rung[], paths: { input: string; outputs: string[] }, watermark?: Parameters<typeof ladderGraph>[2]): string[] {
  const { num, den } = part.fps;
  const preroll = prerollOf(part);
  const start = part.chunk.first - preroll;
  const seek = start === 0 ? [] : ["-ss", chunkSeekS(start, part.fps, part.video).toFixed(6)];
  const { graph, inputs } = ladderGraph(part.video, rungs, watermark, `,setpts=N*${den}/${num}/TB`);
  const d = params.segmentDuration;
  const keyframes = part.ladder?.copiedTop ? ({ at: "source" } as const) : ({ at: "segments", segmentS: d, gop: segmentGop(num / den, d), fromS: (start * den) / num } as const);
  const args = [...inputOptions(paths.input), ...seek, "-i", paths.input, ...inputs, "-filter_complex", graph];
  rungs.forEach((rung, i) =>
    args.push(
      "-map", `[v${i}]`, "-frames:v", String(preroll + part.chunk.frames), "-fps_mode", "passthrough",
      "-c:v", "libx264", "-preset", "medium", "-profile:v", "high", "-threads", String(part.threads), "-x264-params", "stitchable=1",
      ...rungRateArgs(rung), ...keyframeArgs(keyframes), "-an", "-sn", "-dn", "-video_track_timescale", String(num), "-f", "mp4", paths.outputs[i]!,
    ),
  );
  return args;
}

/** A chunk's two ffmpeg runs: its rungs' encodes into `dir` (chunkArgs), then its own frames of them into `output` (keepArgs). */
export function chunkRuns(params: Params, part: Part<"video">, rungs: Rung[], paths: { input: string; dir: string; output: string }, watermark?: Parameters<typeof ladderGraph>[2]): [string[], string[]] {
  const encodes = rungs.map((r) => join(paths.dir, `${r.name}.mp4`));
  const { num, den } = part.fps;
  return [chunkArgs(params, part, rungs, { input: paths.input, outputs: encodes }, watermark), keepArgs(encodes, (prerollOf(part) * den) / num, num, paths.output)];
}

/** The frames a chunk encodes before its own (none for the first). */
const prerollOf = (part: Part<"video">) => Math.min(part.ladder?.preroll ?? 0, part.chunk.first);

/**
 * The chunk's output from its rungs' encodes: each from the chunk's first frame (a keyframe,
 * `prerollS` in; the preroll's packets are left out by copy), one video stream per rung, in the
 * rungs' order. Each encode is opened and cut on its own: cut in one file, a stream after the
 * first kept the packets before the cut.
 */
export function keepArgs(encodes: string[], prerollS: number, timescale: number, output: string): string[] {
  const cut = prerollS > 0 ? ["-ss", prerollS.toFixed(6)] : [];
  return [
    ...encodes.flatMap((file) => [...inputOptions(file), ...cut, "-i", file]),
    ...encodes.flatMap((_, i) => ["-map", `${i}:v:0`]),
    "-c", "copy", "-video_track_timescale", String(timescale), "-movflags", "+faststart", "-f", "mp4", output,
  ];
}

/** Each video stream's frame count in `file`, in stream order. */
async function streamFrames(file: string, signal: AbortSignal): Promise<number[]> {
  const run = await runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=nb_frames", "-of", "csv=p=0", file], { signal, timeoutMs: 60_000 });
  return run.stdout.toString().trim().split("\n").filter(Boolean).map(Number);
}

/** One chunk of every encoded rendition; a chunk whose streams hold other than its frames fails. */
export async function encodeLadderChunk(params: Params, part: Part<"video">, ctx: ProcessorContext): Promise<Record<string, never>> {
  const rungs = encodedRungs(params, part.video, part.ladder?.copiedTop ?? false);
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  const dir = join(ctx.workDir, "rungs");
  await toolDirectory(dir);
  const output = ctx.addOutput(PART_OUTPUTS.video, "video/mp4");
  const [encode, keep] = chunkRuns(params, part, rungs, { input: ctx.input.source, dir, output }, watermark || undefined);
  const durationS = ((part.chunk.frames + prerollOf(part)) * part.fps.den) / part.fps.num;
  // Each rung costs about its share of the input's pixels: the limit grows with them.
  const weight = Math.max(1, rungs.reduce((sum, r) => sum + (r.width * r.height) / (part.video.width * part.video.height), 0));
  await runFfmpeg(encode, {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(durationS * weight, ctx.config),
    durationS,
    onProgress: (f) => ctx.setProgress(5 + f * 85),
    task: `encoding chunk ${part.index + 1}`,
  });
  throwIfAborted(ctx.signal);
  await runFfmpeg(keep, { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(durationS / 10, ctx.config), task: `keeping chunk ${part.index + 1}'s frames` });
  const made = await streamFrames(output, ctx.signal);
  if (made.length !== rungs.length || made.some((n) => n !== part.chunk.frames)) {
    throw new JobFailure("processing_failed", `chunk ${part.index + 1} came out with ${made.join(", ") || "no"} frames instead of ${part.chunk.frames} in each of ${rungs.length} renditions: the video's frame count is not what its container states`);
  }
  return {};
}

/** The renditions' sound, once: AAC-LC at most stereo, as the single run encodes it into each. */
export async function encodeLadderAudio(ctx: ProcessorContext): Promise<Record<string, never>> {
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { video: true });
  if (!probe.audio) throw new JobFailure("processing_failed", "the input has no audio track to encode, though its plan found one");
  const output = ctx.addOutput(PART_OUTPUTS.audio, "audio/mp4");
  const args = [...inputOptions(ctx.input.source), "-i", ctx.input.source, "-map", `0:${probe.audio.index}`, "-vn", "-sn", "-dn", ...audioArgs(probe.audio.channels), "-f", "mp4", output];
  await runFfmpeg(args, { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), durationS: probe.duration, onProgress: (f) => ctx.setProgress(5 + f * 90), task: "encoding the audio" });
  throwIfAborted(ctx.signal);
  return {};
}

/**
 * The stitch's join: the chunks listed in `list` (each opened as MP4 only, as compressVideo's
 * stitchArgs) and the audio, each rendition's stream copied into its HLS files.
 */
export function ladderStitchArgs(list: string, audio: string | undefined, segmentS: number, rungs: { playlist: string; media: string }[]): string[] {
  const mp4Only = ["-protocol_whitelist", "file", "-format_whitelist", "mov"];
  const args = ["-protocol_whitelist", "file", "-format_whitelist", "concat,mov", "-f", "concat", "-safe", "0", "-i", list, ...(audio ? [...mp4Only, "-i", audio] : [])];
  rungs.forEach((paths, i) => args.push("-map", `0:v:${i}`, ...(audio ? ["-map", "1:a"] : []), "-c", "copy", "-sn", "-dn", ...hlsOutput(segmentS, paths)));
  return args;
}

/** The copied top rendition as the master playlist and the alignment check take it, from the plan's figures. */
function planned(top: CopiedRendition, rung: Rung): MeasuredRung {
  return { ...top, rung, segments: top.segments.map((duration) => ({ duration, offset: 0, length: 0 })) };
}

/**
 * Joins each encoded rendition's chunks by copy into its HLS files with the audio, checks each
 * join (the source's frames, a keyframe at every seam), and ends as a single run does
 * (finishLadder): the segments aligned, the master playlist, the DASH manifest and the MP4.
 */
export async function stitchLadder(params: Params, part: Part<"stitch">, ctx: ProcessorContext): Promise<StoredResult<"videoAdaptive">> {
  const ladder = part.ladder;
  if (!ladder) throw new Error("a videoAdaptive stitch needs its ladder plan");
  const rungs = ladderFor(params, part.source);
  const encoded = ladder.top ? rungs.slice(0, -1) : rungs;
  const readTop = ladder.top !== null && ladder.readTop;
  const others = part.videoParts - 1 + (part.audio ? 1 : 0) + (readTop ? 1 : 0);
  const inputs = [ctx.input, ...(await Promise.all(Array.from({ length: others }, (_, i) => ctx.openPart(i + 1))))];
  const files = await Promise.all(inputs.map((input) => input.file()));
  (await Promise.all(inputs.map((input) => input.head(12)))).forEach((head, n) => assertMp4(head, n));
  ctx.setProgress(40);

  const list = await writeChunkList(ctx.workDir, files.slice(0, part.videoParts), part);
  const paths = encoded.map((r) => ({ playlist: ctx.addOutput(`stream/${r.name}.m3u8`, PLAYLIST_TYPE), media: ctx.addOutput(`stream/${r.name}.mp4`, "video/mp4") }));
  const audio = part.audio ? files[part.videoParts] : undefined;
  const durationS = (part.frames * part.fps.den) / part.fps.num;
  await runFfmpeg(ladderStitchArgs(list, audio, params.segmentDuration, paths), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(durationS, ctx.config),
    durationS,
    onProgress: (f) => ctx.setProgress(40 + f * 30),
    task: "joining the chunks",
  });
  throwIfAborted(ctx.signal);
  for (const [i, rung] of encoded.entries()) await checkJoin(paths[i]!.media, part, ctx.signal, `the ${rung.name} rendition's chunks`);
  const measured = [...(await Promise.all(encoded.map((rung, i) => measure(rung, paths[i]!, part.audio, ctx.signal)))), ...(ladder.top ? [planned(ladder.top, rungs.at(-1)!)] : [])];
  ctx.setProgress(80);
  return finishLadder(params, ctx, {
    rungs,
    measured,
    // The copy, read back only when the DASH manifest or the MP4 is made from it (readTop).
    media: [...paths.map((p) => p.media), ...(readTop ? [files.at(-1)!] : [])],
    withAudio: part.audio,
    durationS,
    // Every rendition encoded here: playable now. Else the copy was, and the master grows at the end.
    publish: ladder.top === null,
    source: { ...part.source, format: ladder.format, hasAudio: ladder.hasAudio },
  });
}

// compressVideo across seats (docs/fanout.md): the plan an attempt offered a fan-out answers
// with, one chunk's encode, the audio's, and the stitch that joins them and checks the join
// before it completes the job as a single-seat encode would.
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PART_OUTPUTS, type FanoutOffer, type FanoutPlan, type FrameRate, type JobPart, type PlanVideo } from "../../../src/contract/fanout.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { claimFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe } from "../tools/ffprobe.ts";
import { runTool } from "../tools/spawn.ts";
import { prepareWatermark } from "../tools/watermark.ts";
import { ratio } from "./compress-image.ts";
import { AUDIO_BITRATE, buildArgs, formatBitrate, round3, scaledSize } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";

type Params = JobParams<"compressVideo">;
type Part<R extends JobPart["role"]> = Extract<JobPart, { role: R }>;

/**
 * The input's frames on its rate's grid, when chunks can be cut on frame numbers: a
 * constant-rate video whose container states its frames (and they agree with its length), at
 * least `offer.minSeconds` and two seconds long. Undefined: it encodes alone.
 */
export function frameGrid(offer: FanoutOffer, probe: MediaProbe): { frames: number; rate: FrameRate; perSecond: number } | undefined {
  const video = probe.video;
  const rate = video?.constantRate;
  if (!video || !rate || !video.frames || probe.duration < offer.minSeconds) return undefined;
  // A container whose frame count and length disagree is not taken as constant-rate.
  const expected = (probe.duration * rate.num) / rate.den;
  if (Math.abs(video.frames - expected) > Math.max(2, expected * 0.001)) return undefined;
  const perSecond = Math.max(1, Math.floor(rate.num / rate.den));
  if (video.frames < 2 * perSecond) return undefined;
  return { frames: video.frames, rate, perSecond };
}

/**
 * The video stream as a chunk needs it, with how far its first frame comes after the
 * container's start: ffmpeg's `-ss` counts from the container's start, so a chunk seeking to
 * its first frame without it (an MP4 whose sound starts 0.021 s before its picture) took the
 * frame before, and every chunk after the first came out a frame early (bench section 9).
 */
export function planVideoOf(probe: MediaProbe): PlanVideo {
  const video = probe.video!;
  const offsetS = Math.max(0, (video.startTime ?? 0) - (probe.startTime ?? 0));
  return { index: video.index, width: video.width, height: video.height, ...(offsetS > 0 ? { offsetS } : {}) };
}

/** The seconds to seek a chunk to: half a frame before its first (so rounding never takes the frame before), from the video's first frame. */
export function chunkSeekS(first: number, fps: FrameRate, video: PlanVideo): number {
  return (video.offsetS ?? 0) + ((first - 0.5) * fps.den) / fps.num;
}

/** How many chunks `offer` asks of a video this long: about `chunkSeconds` each, at least `chunksPerSeat` per seat, at most `maxChunks`. */
export function chunkCount(offer: FanoutOffer, durationS: number): number {
  return Math.min(offer.maxChunks, Math.max(offer.seats * offer.chunksPerSeat, Math.ceil(durationS / offer.chunkSeconds)));
}

/**
 * The fan-out of this input (frameGrid), or undefined when it encodes alone. Chunks of about
 * `chunkSeconds`, at least `chunksPerSeat` per seat (a slow chunk then holds no seat back
 * long), none under a second.
 */
export function planFanout(offer: FanoutOffer, probe: MediaProbe, params: Params, inputSize: number): FanoutPlan | undefined {
  const grid = frameGrid(offer, probe);
  if (!grid) return undefined;
  const { frames, rate, perSecond } = grid;
  const video = probe.video!;
  const count = Math.max(2, Math.min(chunkCount(offer, probe.duration), Math.floor(frames / perSecond)));
  const starts = Array.from({ length: count }, (_, i) => Math.round((i * frames) / count));
  return {
    frames,
    fps: rate,
    video: planVideoOf(probe),
    chunks: starts.map((first, i) => ({ first, frames: (starts[i + 1] ?? frames) - first })),
    audio: probe.audio !== null && !params.stripAudio,
    source: { size: inputSize, width: video.width, height: video.height, duration: round3(probe.duration) },
  };
}

/** What a part's attempt reports: a chunk's frames as its output holds them. */
export interface PartResult {
  frames?: number;
}

/**
 * One chunk: its frames, and no others, from an accurate seek half a frame before its first
 * (so rounding never takes the frame before), encoded alone; its first frame is a keyframe.
 * Its output is counted, and a chunk with other than its frames fails.
 */
export async function encodeChunk(params: Params, part: Part<"video">, ctx: ProcessorContext): Promise<PartResult> {
  // What the plan probed: the chunk reads only its own bytes (and the index ffmpeg opens with).
  const probe: MediaProbe = { format: "mp4", duration: 0, size: ctx.input.size, bitRate: null, video: { ...part.video, codec: "", frameRate: part.fps.num / part.fps.den }, audio: null };
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  const { num, den } = part.fps;
  const output = ctx.addOutput(PART_OUTPUTS.video, "video/mp4");
  const seekS = part.chunk.first === 0 ? undefined : chunkSeekS(part.chunk.first, part.fps, part.video);
  const durationS = (part.chunk.frames * den) / num;
  await runFfmpeg(buildArgs(params, probe, { input: ctx.input.source, output }, watermark, { seekS, frames: part.chunk.frames, threads: part.threads, ...chunkTimescale(part.fps) }), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(durationS, ctx.config),
    durationS,
    onProgress: (f) => ctx.setProgress(5 + f * 90),
    task: `encoding chunk ${part.index + 1}`,
  });
  throwIfAborted(ctx.signal);
  const made = (await probeMedia(output, ctx.signal)).video?.frames;
  if (made !== part.chunk.frames) {
    throw new JobFailure("processing_failed", `chunk ${part.index + 1} came out with ${made ?? "no"} frames instead of ${part.chunk.frames}: the video's frame count is not what its container states`);
  }
  return { frames: made };
}

/** The audio, once, as the single-seat encode would (AAC at the preset's bitrate, at most stereo). */
export async function encodeAudio(params: Params, ctx: ProcessorContext): Promise<PartResult> {
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { video: true });
  if (!probe.audio) throw new JobFailure("processing_failed", "the input has no audio track to encode, though its plan found one");
  const output = ctx.addOutput(PART_OUTPUTS.audio, "audio/mp4");
  await runFfmpeg(audioPartArgs(params, probe.audio, ctx.input.source, output), { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), durationS: probe.duration, onProgress: (f) => ctx.setProgress(5 + f * 90), task: "encoding the audio" });
  throwIfAborted(ctx.signal);
  return {};
}

/** The audio part's encode: the single encode's audio settings, alone. */
export function audioPartArgs(params: Params, audio: { index: number; channels: number }, input: string, output: string): string[] {
  const channels = audio.channels > 2 ? ["-ac", "2"] : [];
  return [...inputOptions(input), "-i", input, "-map", `0:${audio.index}`, "-vn", "-sn", "-dn", "-c:a", "aac", "-b:a", AUDIO_BITRATE.mp4[params.quality], ...channels, "-f", "mp4", output];
}

/**
 * Joins the chunks (and the audio) by copy, checks the join (checkJoin), and answers as the
 * single-seat encode does. Every part is read through the runner into the attempt's directory.
 */
export async function stitch(params: Params, part: Part<"stitch">, ctx: ProcessorContext): Promise<StoredResult<"compressVideo">> {
  const inputs = [ctx.input, ...(await Promise.all(Array.from({ length: part.videoParts - 1 + (part.audio ? 1 : 0) }, (_, i) => ctx.openPart(i + 1))))];
  const files = await Promise.all(inputs.map((input) => input.file()));
  // Each part begins as the MP4 its attempt wrote, or the join stops before reading any.
  (await Promise.all(inputs.map((input) => input.head(12)))).forEach((head, n) => assertMp4(head, n));
  ctx.setProgress(40);
  const list = await writeChunkList(ctx.workDir, files.slice(0, part.videoParts), part);
  const output = ctx.addOutput("video.mp4", "video/mp4");
  const durationS = (part.frames * part.fps.den) / part.fps.num;
  await runFfmpeg(
    stitchArgs(list, part.audio ? files[part.videoParts]! : undefined, output, part.offsetS),
    { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(durationS, ctx.config), durationS, onProgress: (f) => ctx.setProgress(40 + f * 40), task: "joining the chunks" },
  );
  throwIfAborted(ctx.signal);
  await checkJoin(output, part, ctx.signal);
  ctx.setProgress(95);
  const result = await probeMedia(output, ctx.signal);
  const size = (await stat(output)).size;
  const picture = scaledSize(part.source.width, part.source.height, params.maxWidth, params.maxHeight);
  return {
    url: "video.mp4",
    size,
    width: result.video?.width ?? picture.width,
    height: result.video?.height ?? picture.height,
    duration: round3(result.duration),
    format: "mp4",
    codec: params.codec,
    bitrate: formatBitrate(result.bitRate ?? (result.duration > 0 ? (size * 8) / result.duration : 0)),
    compressionRatio: ratio(size, part.source.size),
    source: part.source,
  };
}

/**
 * The concat demuxer's list of the chunks (`files`, in order), each with its exact length
 * (its frames ÷ the rate): the next chunk's timestamps then go on from there to the tick. Left
 * to the files' own lengths, rounded and shifted by their edit lists, a seam drifted by a few
 * ticks, and a rendition's segments no longer measured what the copy's did. Our own file
 * names, one per line: nothing of the user's is in the list (a name claimed first, attempt-files.ts).
 */
export async function writeChunkList(dir: string, files: string[], part: Pick<Part<"stitch">, "frames" | "seams" | "fps">): Promise<string> {
  const firsts = [0, ...part.seams, part.frames];
  const lines = files.map((file, i) => `file '${file}'\nduration ${(((firsts[i + 1]! - firsts[i]!) * part.fps.den) / part.fps.num).toFixed(6)}`);
  const list = join(dir, "chunks.ffconcat");
  await claimFile(list);
  await writeFile(list, `ffconcat version 1.0\n${lines.join("\n")}\n`);
  return list;
}

/**
 * A part's first bytes must be an MP4's (`ftyp` as its first box). Its bytes were written
 * under another attempt's uid: one that is a list or a playlist naming files of its own must
 * not reach the concat demuxer, which would open what it names (a nested list passes the
 * format whitelist below, which lets `concat` in).
 */
export function assertMp4(head: Buffer, n: number): void {
  if (head.subarray(4, 8).toString("latin1") === "ftyp") return;
  throw new JobFailure("processing_failed", `part ${n} of the encode is not an MP4; this is a fault on our side, it has been logged`);
}

/**
 * ffmpeg's join of the chunks listed in `list` (and the audio) by copy, each opened as MP4 only
 * (the concat demuxer passes its whitelists to each file it opens): a playlist is refused unread.
 *
 * Each chunk starts at 0, so the joined picture is put back `offsetS` after the input's start,
 * where the input's picture starts against its sound (the audio part keeps its own place).
 * Without it, an input whose picture starts 21 ms after its sound came out with them 21 ms
 * closer. (A single encode keeps that place by repeating its first frame: ffmpeg's constant
 * frame rate for MP4 fills the gap.)
 */
export function stitchArgs(list: string, audio: string | undefined, output: string, offsetS?: number): string[] {
  const mp4Only = ["-protocol_whitelist", "file", "-format_whitelist", "mov"];
  const audioInput = audio ? [...mp4Only, "-i", audio] : [];
  return [
    ...(offsetS ? ["-itsoffset", offsetS.toFixed(6)] : []),
    "-protocol_whitelist", "file", "-format_whitelist", "concat,mov", "-f", "concat", "-safe", "0", "-i", list,
    ...audioInput, "-map", "0:v", ...(audio ? ["-map", "1:a"] : []), "-c", "copy", "-movflags", "+faststart", "-f", "mp4", output,
  ];
}

/**
 * A chunk's track time scale: a multiple of the rate's numerator, so that each frame lasts a
 * whole number of ticks, and of 90 kHz or more, so that the stitch's offset (stitchArgs) keeps
 * its place: at the rate's own (30 ticks a second at 30 fps) 21 ms became a frame.
 */
export function chunkTimescale(fps: FrameRate): { timescale: number; timescaleDen: number } {
  const ticksPerUnit = Math.max(1, Math.ceil(90_000 / fps.num));
  return { timescale: fps.num * ticksPerUnit, timescaleDen: fps.den * ticksPerUnit };
}

/**
 * The join is what one encode would have made: the source's frame count, decode timestamps
 * rising and presentation timestamps all distinct, the video's length within one frame of
 * frames ÷ rate, and a keyframe where each chunk begins. Else the job fails; nothing is
 * published that is not.
 */
export async function checkJoin(output: string, part: Pick<Part<"stitch">, "frames" | "seams">, signal: AbortSignal, what = "the encoded chunks"): Promise<void> {
  const run = await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts,duration,flags", "-of", "csv=p=0", output], { signal, timeoutMs: 120_000 });
  const packets = run.stdout
    .toString()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [pts, dts, duration, flags] = line.split(",");
      return { pts: Number(pts), dts: Number(dts), duration: Number(duration), key: (flags ?? "").includes("K") };
    });
  const problems: string[] = [];
  if (packets.length !== part.frames) problems.push(`${packets.length} frames instead of the source's ${part.frames}`);
  if (packets.some((p, i) => i > 0 && !(p.dts > packets[i - 1]!.dts))) problems.push("decode timestamps that do not rise");
  if (new Set(packets.map((p) => p.pts)).size !== packets.length) problems.push("two frames at one time");
  const missing = part.seams.filter((frame) => !packets[frame]?.key);
  if (missing.length) problems.push(`no keyframe at frame ${missing.join(", ")}`);
  const pts = packets.map((p) => p.pts);
  const tick = packets[0]?.duration || 1;
  const lengthFrames = pts.length ? (Math.max(...pts) - Math.min(...pts)) / tick + 1 : 0;
  if (Math.abs(lengthFrames - part.frames) > 1) problems.push(`a length of ${lengthFrames.toFixed(1)} frames instead of ${part.frames}`);
  if (problems.length) throw new JobFailure("processing_failed", `${what} did not join into one video (${problems.join("; ")}); this is a fault on our side, it has been logged`);
}

// Still frames from video: where a time falls on the frame grid, what size a frame comes
// out, and grabbing one (ffmpeg decodes and scales; it writes a JPEG itself when sharp has
// nothing to do, else hands its pixels over raw and sharp crops, pads, watermarks and
// encodes JPEG, PNG or WebP).
// Which frame to grab, when the caller asks for "auto" or for no black frame, is
// frame-choice.ts.
import { access, rm, writeFile } from "node:fs/promises";
import type { OverlayOptions } from "sharp";
import { sharp } from "./image-process.ts";
import type { Config } from "../config.ts";
import { claimFile, readToolFile, toolFileSize } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { step } from "../steps.ts";
import { imageFailure } from "./image.ts";
import { ffmpegTimeoutMs, globalOptions, runFfmpeg, seconds, type FfmpegOptions } from "./ffmpeg.ts";
import { INPUT_FORMATS, inputOptions, LOOPBACK_PROTOCOLS, type MediaProbe } from "./ffprobe.ts";
import type { RunResult } from "./spawn.ts";
import { padColour, sharpPosition } from "./crop.ts";
import { withWatermark } from "./watermark.ts";
import type { Fit, Position } from "../../../src/contract/common.ts";

export type FrameFormat = "jpg" | "png" | "webp";

export const FRAME_CONTENT_TYPES: Record<FrameFormat, string> = { jpg: "image/jpeg", png: "image/png", webp: "image/webp" };

/** Frame rate assumed when the container states none. */
const FALLBACK_FPS = 25;

export interface FrameBox {
  /** Size the decoded picture is scaled to (square pixels). */
  scaleWidth: number;
  scaleHeight: number;
  /** Final size: the scaled picture, cropped or padded when both sides were asked for. */
  width: number;
  height: number;
  /**
   * What sharp does to the scaled picture to reach the final size, when ffmpeg does not: a
   * `cover` crop at a position other than the centre (a side, or attention/entropy, which
   * need sharp's analysis), or `contain`'s padding. Absent when ffmpeg's scale (and centre
   * crop) already gives the final picture.
   */
  finish?: { fit: "cover" | "contain"; position: Position; background?: string };
}

export interface FrameShape {
  width?: number;
  height?: number;
  fit?: Fit;
  position?: Position;
  background?: string;
}

/**
 * Frame size (docs/job-types.md, videoThumbnail): no size keeps the source's; one side keeps the
 * aspect; both give the box by `fit`: cover (the default) scales to cover it and crops, fill
 * stretches to it, inside scales to fit in it, contain scales to fit and pads to it.
 */
export function frameBox(source: { width: number; height: number }, shape: FrameShape = {}): FrameBox {
  const { width, height, fit = "cover", position = "center", background } = shape;
  const sw = source.width;
  const sh = source.height;
  if (width && height) {
    switch (fit) {
      case "fill":
        return { scaleWidth: width, scaleHeight: height, width, height };
      case "inside":
      case "contain": {
        const factor = Math.min(width / sw, height / sh);
        const scaleWidth = Math.max(1, Math.min(width, Math.round(sw * factor)));
        const scaleHeight = Math.max(1, Math.min(height, Math.round(sh * factor)));
        if (fit === "inside") return { scaleWidth, scaleHeight, width: scaleWidth, height: scaleHeight };
        const padded = scaleWidth !== width || scaleHeight !== height;
        return { scaleWidth, scaleHeight, width, height, ...(padded ? { finish: { fit, position, background } } : {}) };
      }
      case "cover": {
        const factor = Math.max(width / sw, height / sh);
        const scaleWidth = Math.max(width, Math.round(sw * factor));
        const scaleHeight = Math.max(height, Math.round(sh * factor));
        const cropped = scaleWidth !== width || scaleHeight !== height;
        // The centre crop stays ffmpeg's (as before `position` existed); any other is sharp's.
        return { scaleWidth, scaleHeight, width, height, ...(cropped && position !== "center" ? { finish: { fit, position } } : {}) };
      }
    }
  }
  if (width) {
    const h = Math.max(1, Math.round((sh * width) / sw));
    return { scaleWidth: width, scaleHeight: h, width, height: h };
  }
  if (height) {
    const w = Math.max(1, Math.round((sw * height) / sh));
    return { scaleWidth: w, scaleHeight: height, width: w, height };
  }
  return { scaleWidth: sw, scaleHeight: sh, width: sw, height: sh };
}

/** ffmpeg's part of the box: the scale, and the centre crop unless sharp finishes the picture. */
export function boxFilter(box: FrameBox): string {
  const cropped = !box.finish && (box.width !== box.scaleWidth || box.height !== box.scaleHeight);
  return `scale=${box.scaleWidth}:${box.scaleHeight},setsar=1${cropped ? `,crop=${box.width}:${box.height}` : ""}`;
}

/**
 * How a grabbed frame reaches sharp: raw pixels, 8 bits a channel, RGB, or RGBA for a video
 * with alpha (what ffmpeg's PNG encoder chose for these before; the PNG's encode and decode,
 * 60–80 ms of CPU for a 1080p frame, are gone, and sharp gets the same pixels). Its size is
 * what ffmpeg's part of the box leaves.
 */
export interface FramePixels {
  format: "rgb24" | "rgba";
  channels: 3 | 4;
  width: number;
  height: number;
}

export function framePixels(probe: MediaProbe, box: FrameBox): FramePixels {
  const alpha = probe.video?.alpha === true;
  // boxFilter crops to the final size unless sharp finishes the picture.
  const [width, height] = box.finish ? [box.scaleWidth, box.scaleHeight] : [box.width, box.height];
  return { format: alpha ? "rgba" : "rgb24", channels: alpha ? 4 : 3, width, height };
}

/**
 * ffmpeg's whole filter for a grab: the box, then the pixel layout sharp reads (framePixels);
 * or, for a JPEG ffmpeg writes (`jpegQuality` given), the same RGB turned to what sharp's
 * libjpeg would make of it (JPEG_PIXELS).
 */
export function frameFilter(probe: MediaProbe, box: FrameBox, jpegQuality?: number): string {
  return `${boxFilter(box)},format=${framePixels(probe, box).format}${jpegQuality === undefined ? "" : `,${JPEG_PIXELS}`}`;
}

/**
 * Whether ffmpeg writes the frame's JPEG itself: sharp would have nothing to do but encode (no
 * padding, no crop but ffmpeg's centre one, no watermark), and sending it 6 MB of pixels costs
 * more than ffmpeg's own JPEG (docs/job-types.md, "videoThumbnail's JPEG"). Decided from the
 * job's parameters alone, before the probe, since the grab's ffmpeg starts beside it with its
 * encoder fixed; frameBox gives no `finish` for these. A video with alpha still goes to sharp
 * (jpegByFfmpeg).
 */
export function ffmpegWritesJpeg(params: FrameShape & { format: FrameFormat; watermark?: unknown }): boolean {
  if (params.format !== "jpg" || params.watermark) return false;
  if (!params.width || !params.height) return true;
  const fit = params.fit ?? "cover";
  return fit === "fill" || fit === "inside" || (fit === "cover" && (params.position ?? "center") === "center");
}

/** ffmpegWritesJpeg, once the probe has answered: its quality, or undefined when sharp encodes (alpha, which sharp's JPEG treats its own way). */
export function jpegByFfmpeg(params: FrameShape & { format: FrameFormat; quality: number; watermark?: unknown }, probe: MediaProbe): number | undefined {
  return ffmpegWritesJpeg(params) && !probe.video?.alpha ? params.quality : undefined;
}

/**
 * From the frame's RGB (today's pixels for sharp) to the planes libjpeg makes of them: JFIF's
 * full-range YCbCr by BT.601's coefficients (what every JPEG decoder assumes, whatever the
 * video's matrix and range were), chroma halved both ways by averaging 2×2 (`area`, as
 * libjpeg's downsampling, and sharp's 4:2:0). Going through RGB keeps the colours exactly
 * those sharp is given, for any matrix the video states or none.
 */
const JPEG_PIXELS = "scale=out_color_matrix=bt601:out_range=full:flags=area,format=yuvj420p";

/** libjpeg's base tables (ITU-T T.81 Annex K, K.1 and K.2), in row order, as jcparam.c scales them for a quality. */
const JPEG_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const JPEG_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
  ...Array<number>(32).fill(99),
];

/**
 * ffmpeg's tables as a fraction of libjpeg's for the same quality. ffmpeg's quantiser rounds
 * towards zero (3/8 of a step where libjpeg rounds to the nearest), so with libjpeg's own
 * tables its files are 3–16 % smaller and 0.3–1.3 dB lower in luma PSNR; at 0.85 of them,
 * size is within 8 % and luma PSNR within 0.35 dB of sharp's from 50 to 95 (three sources:
 * docs/job-types.md, "videoThumbnail's JPEG").
 */
const FFMPEG_TABLE_SCALE = 0.85;

/**
 * The quantisation tables ffmpeg's mjpeg encoder is given for `quality` (1–100): libjpeg's
 * scaling of the base tables (jcparam.c jpeg_quality_scaling: 5000/q below 50, 200 − 2q from
 * 50), times FFMPEG_TABLE_SCALE, each entry 1–255 (baseline JPEG). Row order, as ffmpeg's
 * `-intra_matrix` reads them; it writes them zigzagged. Its DC entry is always 8 (mjpeg
 * takes no other DC precision), not the table's.
 */
export function jpegTables(quality: number): { luma: number[]; chroma: number[] } {
  const scale = (quality < 50 ? 5000 / quality : 200 - 2 * quality) * FFMPEG_TABLE_SCALE;
  const table = (base: number[]) => base.map((value) => Math.min(255, Math.max(1, Math.round((value * scale) / 100))));
  return { luma: table(JPEG_LUMA), chroma: table(JPEG_CHROMA) };
}

/** Frames per second: the container's rate, or FALLBACK_FPS when it states none. */
export function fps(probe: MediaProbe): number {
  return probe.video?.frameRate ?? FALLBACK_FPS;
}

/** Time of the last frame: one frame before the end. */
export function lastFrameTime(probe: MediaProbe): number {
  const rate = fps(probe);
  return Math.max(0, Math.floor((probe.duration - 1e-6) * rate) / rate);
}

/** The start of the frame on screen at `t` (on the frame grid), never past the last frame. */
export function frameTimeAt(t: number, probe: MediaProbe): number {
  const rate = fps(probe);
  return Math.min(lastFrameTime(probe), Math.floor(t * rate + 1e-6) / rate);
}

/**
 * Where to seek to get the frame that starts at `frameTime`: half a frame early, because
 * ffmpeg's accurate seek returns the first frame at or after the point asked for.
 */
export function seekPoint(frameTime: number, probe: MediaProbe): number {
  return Math.max(0, frameTime - 0.5 / fps(probe));
}

/** One frame out, its pixels raw in the layout its filter ends with (framePixels; sharp encodes the format asked for). */
function rawOutput(output: string): string[] {
  return ["-frames:v", "1", "-c:v", "rawvideo", "-f", "rawvideo", output];
}

/**
 * One frame out as a baseline JPEG at `quality` (jpegTables; `-q:v 8` leaves the tables as
 * given), Huffman tables optimised for the image as sharp's `optimiseCoding`, and no comment
 * naming the encoder (`bitexact`): JFIF, as sharp writes.
 */
function jpegOutput(output: string, quality: number): string[] {
  const { luma, chroma } = jpegTables(quality);
  return [
    "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "8", "-intra_matrix", luma.join(","), "-chroma_intra_matrix", chroma.join(","),
    "-huffman", "optimal", "-flags:v", "+bitexact", "-f", "mjpeg", output,
  ];
}

/** A grab's output: raw pixels for sharp, or the JPEG itself when `jpegQuality` is given (jpegByFfmpeg). */
function grabOutput(output: string, jpegQuality?: number): string[] {
  return jpegQuality === undefined ? rawOutput(output) : jpegOutput(output, jpegQuality);
}

/**
 * ffmpeg arguments writing one frame at `time`, scaled and cropped, as raw pixels
 * (framePixels), or as the JPEG at `jpegQuality` (jpegByFfmpeg).
 */
export function grabArgs(input: string, probe: MediaProbe, time: number, box: FrameBox, output: string, jpegQuality?: number): string[] {
  return [
    ...inputOptions(input), "-ss", seconds(seekPoint(time, probe)), "-i", input,
    "-map", `0:${probe.video!.index}`, "-an", "-sn", "-dn", "-vf", frameFilter(probe, box, jpegQuality), ...grabOutput(output, jpegQuality),
  ];
}

/**
 * How far before the time asked for an early grab seeks. The frame wanted is the one on
 * screen at `t`, reached by seeking to half a frame before its start (seekPoint): at most
 * 1.5 frames before `t`, so 0.25 s covers every video of 6 fps or more. A wider margin
 * costs decoding from an earlier keyframe when one falls inside it.
 */
const EARLY_SEEK_MARGIN_S = 0.25;

const earlySeek = (t: number) => seconds(Math.max(0, t - EARLY_SEEK_MARGIN_S));

/**
 * An early grab's command line (tools/ffmpeg.ts EarlyFfmpeg, `graph: "output"`), for the
 * frame on screen at `requested` seconds: the graph is the video stream's own filter, read
 * from stdin once the probe has answered, so ffmpeg opens the input (header, index) while
 * the probe runs. `0:V:0` is the first video stream that is not an attached picture: the
 * stream the probe chooses (ffprobe.ts parseProbe). Its output, encoder included, is fixed
 * now: raw pixels, or the JPEG at `jpegQuality` (then its graph must be made with the same).
 */
export function earlyGrabArgs(input: string, requested: number, output: string, jpegQuality?: number): string[] {
  return [...inputOptions(input), "-ss", earlySeek(requested), "-i", input, "-map", "0:V:0", "-filter_script:v", "pipe:0", ...grabOutput(output, jpegQuality)];
}

/**
 * Its filter graph once the probe has answered: on the probe's video stream, frames dropped
 * up to grabArgs' own seek point, then scaled and cropped as there. After an input seek
 * ffmpeg's timeline starts at the seek point, so dropping `seekPoint − earlySeek` more
 * leaves the first frame at or after seekPoint: the frame grabArgs gives (tested), ending
 * as earlyGrabArgs' output needs (`jpegQuality` as given to it). Null
 * when seekPoint lies before the early seek (under 6 fps; the last frame of a video whose
 * audio runs longer): the grab is then run as grabArgs, after the probe.
 */
export function earlyGrabGraph(probe: MediaProbe, requested: number, time: number, box: FrameBox, jpegQuality?: number): string | null {
  const skip = Number(seconds(seekPoint(time, probe))) - Number(earlySeek(requested));
  if (skip < 0) return null;
  return `trim=start=${seconds(skip)},${frameFilter(probe, box, jpegQuality)}`;
}

/**
 * A ready grab's command line (tools/ready-tools.ts), writing one frame's pixels to `output`
 * as grabArgs does. Its input is a filter graph read from fd 3 (libavdevice's lavfi,
 * `graph_file`): `movie` opening the job's input (readyGrabSource), which the job sends as it
 * starts. ffmpeg opens its inputs before it reads an output's options, so the grab reads
 * the input's index, seeks and decodes its first frame there while the probe runs, then
 * waits for the frame's filter (readyGrabGraph) on stdin, as an early grab does (ffmpeg.ts
 * EarlyFfmpeg, `graph: "output"`). So the process can start before any job.
 *
 * An input graph is built once, where a `-filter_complex` one is built twice (ffmpeg 5.1
 * builds it first only to learn its outputs), and each build of `movie` opens the input:
 * its index read and parsed, its first frames decoded (about 55 ms of CPU for a 12-minute
 * 1080p phone video). The graph's one output is known, so ffmpeg probes no more of it than
 * its first frame (`-probesize`, `-analyzeduration`, `-fpsprobesize`). `-copyts` keeps the
 * frames' own times for the filter's `trim` (lavfi's stream would start at its first
 * frame's); `-fps_mode passthrough` writes the frame as it comes.
 *
 * It has two outputs, since its encoder is fixed now, before any job: the frame's raw
 * pixels to `output`, its filter on stdin; and its JPEG at `jpeg.quality` to `jpeg.output`
 * (as grabArgs' with that quality), its filter on fd 4. A job gives the frame's filter to
 * the one it uses and UNUSED_OUTPUT to the other (readyGrabGraph).
 */
export function readyGrabArgs(output: string, jpeg: { output: string; quality: number }): string[] {
  return [
    ...globalOptions(), "-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0",
    "-format_whitelist", "lavfi", "-f", "lavfi", "-graph_file", "pipe:3", "-i", "graph",
    "-copyts", "-fps_mode", "passthrough",
    "-map", "0:v", "-filter_script:v", "pipe:0", ...rawOutput(output),
    "-map", "0:v", "-filter_script:v", "pipe:4", ...jpegOutput(jpeg.output, jpeg.quality),
  ];
}

/**
 * The filter of a ready grab's output a job does not use: the first frame that comes (the
 * keyframe its seek decodes anyway), made tiny, in the output's pixel format; then the end of
 * its stream. ffmpeg ends once every output has its frame, so an output given no frame would
 * keep it decoding to the end of the input.
 */
const UNUSED_OUTPUT = { pixels: "trim=end_frame=1,scale=2:2,format=rgb24", jpeg: `trim=end_frame=1,scale=16:16,format=rgb24,${JPEG_PIXELS}` };

/** Containers (MediaProbe.format) whose index takes a seek to a keyframe: MP4 and MOV (their sample tables), Matroska and WebM (their cues). */
const INDEXED_CONTAINERS = new Set(["mp4", "mov", "mkv", "webm"]);

/**
 * A filter option's value: quoted for the graph's parser (which keeps what is between quotes
 * as it is) and escaped for the option parser after it (`\:`, `\,`). Only our own URLs and
 * names come here; a quote cannot be written inside quotes.
 */
function optionValue(value: string): string {
  if (value.includes("'")) throw new Error(`a filter option may not hold a quote: ${value}`);
  return `'${value.replace(/[\\:,]/g, (c) => `\\${c}`)}'`;
}

/**
 * A ready grab's input (readyGrabArgs), for the frame on screen at `requested` seconds,
 * before any probe: the input at `url` (the ready process's own URL, answered by the job's
 * input), opened by the `movie` source under the whitelists the loopback input gets
 * (inputOptions; no proxy, by the ready process's environment); its video stream (`dv`, the
 * one video stream: readyGrabGraph checks there is one) read from the keyframe before the
 * early seek point (as ffmpeg's `-ss` does; EARLY_SEEK_MARGIN_S before, which covers its own
 * 3/23 s for B-frames). movie's seek counts from the file's start time, as `-ss` does.
 */
export function readyGrabSource(url: string, requested: number): string {
  // The loopback input's options (inputOptions, LOOPBACK_RECONNECT among them), as options of movie's open.
  const formatOptions = `protocol_whitelist=${LOOPBACK_PROTOCOLS}:reconnect=1:reconnect_delay_max=0:format_whitelist=${INPUT_FORMATS}`;
  // lavfi names a graph's outputs out0, out1, …
  return `movie=filename=${optionValue(url)}:s=dv:sp=${earlySeek(requested)}:format_opts=${optionValue(formatOptions)}[out0]`;
}

/**
 * A ready grab's filter once the probe has answered: `trim` keeps the frames from grabArgs'
 * seek point on (the first is grabArgs' frame), then the box and pixels as grabArgs'.
 * movie's frames keep the file's own times (and `-copyts` keeps them): hence the start time
 * added to trim's. Null when the frame could differ from grabArgs', and the job runs grabArgs:
 * - a picture the display matrix turns or mirrors (ffmpeg's command line undoes it, movie
 *   does not);
 * - a container whose seeks do not land on keyframes through an index (MPEG-TS, MPEG, Ogg,
 *   …): there `-ss` may land on a frame the decoder cannot start from and give a later
 *   frame, and a seek 0.25 s earlier would not;
 * - a seek point before the file's start time, or before the early seek point (under 6 fps;
 *   the last frame of a video whose audio runs longer), as earlyGrabGraph;
 * - more than one video stream (cover art included): movie's `dv` might not be the probe's.
 *
 * The frame goes to the JPEG output when `jpegQuality` is given (the quality the grab writes:
 * ReadyTool.jpeg), else to the raw pixels; the other output gets UNUSED_OUTPUT.
 */
export function readyGrabGraph(probe: MediaProbe, requested: number, time: number, box: FrameBox, jpegQuality?: number): { pixels: string; jpeg: string } | null {
  const start = probe.startTime ?? 0;
  const point = Number(seconds(seekPoint(time, probe)));
  if (probe.video!.transformed || !INDEXED_CONTAINERS.has(probe.format) || point + start < 0) return null;
  if (point < Number(earlySeek(requested)) || probe.videoStreams !== 1) return null;
  const frame = `trim=start=${seconds(point + start)},${frameFilter(probe, box, jpegQuality)}`;
  return jpegQuality === undefined ? { pixels: frame, jpeg: UNUSED_OUTPUT.jpeg } : { pixels: UNUSED_OUTPUT.pixels, jpeg: frame };
}

/**
 * The same one-input run (grabArgs) seeking on the output side: `-ss` after `-i`, so ffmpeg decodes from the
 * start and drops frames until the time instead of jumping through the file's index. Slower,
 * but it works on files that cannot be seeked in (a broken or missing index); the frame is
 * the same, the first at or after the seek point.
 */
export function decodingSeek(args: string[]): string[] {
  const ss = args.indexOf("-ss");
  const input = args.indexOf("-i");
  if (ss < 0 || ss > input) return args;
  const out = args.filter((_, i) => i !== ss && i !== ss + 1);
  const after = out.indexOf("-i") + 2;
  return [...out.slice(0, after), "-ss", args[ss + 1]!, ...out.slice(after)];
}

export interface FrameContext {
  /** `source`: what ffmpeg opens (ProcessorInput.source). */
  input: { source: string };
  workDir: string;
  signal: AbortSignal;
  config: Pick<Config, "JOB_TIMEOUT_MS" | "MAX_INPUT_PIXELS">;
}

export interface GrabbedFrame {
  size: number;
  width: number;
  height: number;
}

/** Checks a frame size against the processor's pixel limit before anything is decoded. */
export function checkBox(box: FrameBox, config: Pick<Config, "MAX_INPUT_PIXELS">): void {
  if (Math.max(box.scaleWidth * box.scaleHeight, box.width * box.height) > config.MAX_INPUT_PIXELS) {
    throw new JobFailure("invalid_input", `a ${box.width}×${box.height} frame is larger than this service produces`);
  }
}

/** The grab's ffmpeg already started (an EarlyFfmpeg, a ready grab): its run, given its options; it writes what `args` would. */
export type StartedGrab = (options: FfmpegOptions) => Promise<RunResult>;

/**
 * Runs a grab (`started`, or `args`) writing `written`: seeking through the index first;
 * when that gives an error or no file, decoding up to the time (decodingSeek). Resolves to
 * the failure to give when the file holds no frame.
 */
async function runGrab(ctx: FrameContext, probe: MediaProbe, args: string[], time: number, written: string, started?: StartedGrab): Promise<(cause: unknown) => JobFailure> {
  const at = `${Math.round(time * 1000) / 1000} s`;
  const options = { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), task: `reading the frame at ${at}` };
  const run = (argv: string[]) => runFfmpeg(argv, options);
  const seeked = await (started ? started(options) : run(args)).then(
    () => exists(written),
    (error: unknown) => (error instanceof JobFailure && error.code === "corrupt_media" ? false : Promise.reject(error)),
  );
  if (!seeked) await run(decodingSeek(args));
  throwIfAborted(ctx.signal);
  return (cause) => new JobFailure("corrupt_media", `no frame could be decoded at ${at}; the video may be damaged there`, { cause });
}

/**
 * Runs `args` (grabArgs writing the JPEG itself to `frame.written`, jpegByFfmpeg), and makes
 * it `frame.output`: there already, or copied from where a ready grab writes. Its size is the
 * box's: ffmpeg's filter made it, and nothing changes it after.
 */
export async function grabJpeg(
  ctx: FrameContext,
  probe: MediaProbe,
  args: string[],
  frame: { time: number; written: string; output: string; box: FrameBox },
  started?: StartedGrab,
): Promise<GrabbedFrame> {
  const noFrame = await runGrab(ctx, probe, args, frame.time, frame.written, started);
  const missing = (error: NodeJS.ErrnoException) => Promise.reject(error.code === "ENOENT" ? noFrame(error) : error);
  // Read as a tool's file (attempt-files.ts): never through a link it left. Empty: ffmpeg opened it and decoded nothing.
  let size: number;
  if (frame.written === frame.output) size = await toolFileSize(frame.output).catch(missing);
  else {
    const jpeg = await readToolFile(frame.written).catch(missing).finally(() => rm(frame.written, { force: true }));
    size = jpeg.length;
    if (size > 0) {
      await claimFile(frame.output);
      await writeFile(frame.output, jpeg);
    }
  }
  if (size === 0) throw noFrame("an empty JPEG");
  return { size, width: frame.box.width, height: frame.box.height };
}

/**
 * Runs `args` (grabArgs writing the frame's pixels to `frame.raw`), then crops or pads them when
 * `frame.box` says so (FrameBox.finish) and encodes them to `frame.output` in the format asked
 * for. Always: the intermediate file is removed.
 */
export async function grabFrame(
  ctx: FrameContext,
  probe: MediaProbe,
  args: string[],
  frame: { time: number; raw: string; format: FrameFormat; quality: number; output: string; box: FrameBox; /** A watermark for the final size (tools/watermark.ts sharpOverlay). */ overlay?: OverlayOptions },
  /** Writes `frame.raw` as `args` would. */
  started?: StartedGrab,
): Promise<GrabbedFrame> {
  const at = `${Math.round(frame.time * 1000) / 1000} s`;
  try {
    const noFrame = await runGrab(ctx, probe, args, frame.time, frame.raw, started);
    // The frame's bytes, read as a tool's file (attempt-files.ts): never through a link it left.
    const raw = await readToolFile(frame.raw).catch((error: NodeJS.ErrnoException) => Promise.reject(error.code === "ENOENT" ? noFrame(error) : error));
    const box = frame.box;
    const pixels = framePixels(probe, box);
    // Exactly one frame of the size the filter makes, or none at all (an empty file: nothing decoded).
    if (raw.length !== pixels.width * pixels.height * pixels.channels) throw noFrame(`${raw.length} bytes of pixels for a ${pixels.width}×${pixels.height} frame`);
    let image = sharp(raw, { raw: { width: pixels.width, height: pixels.height, channels: pixels.channels }, limitInputPixels: ctx.config.MAX_INPUT_PIXELS });
    // The pixels are already at the scale the box needs, so this crops or pads without resampling.
    if (box.finish) {
      image = image.resize({
        width: box.width,
        height: box.height,
        fit: box.finish.fit,
        position: sharpPosition(box.finish.position),
        background: padColour(box.finish.background, frame.format !== "jpg"),
      });
    }
    if (frame.overlay) {
      // An opaque frame stays opaque under the watermark, unless contain pads it with nothing (tools/watermark.ts).
      const transparentPadding = box.finish?.fit === "contain" && !box.finish.background && frame.format !== "jpg";
      image = withWatermark(image, frame.overlay, pixels.channels === 4 || transparentPadding);
    }
    switch (frame.format) {
      case "jpg":
        // libjpeg-turbo with optimized Huffman tables, not mozjpeg: on a 1080p frame 15–30 ms
        // against 120–160 ms, for a file about 4 % larger (docs/job-types.md, videoThumbnail).
        image = image.jpeg({ quality: frame.quality, optimiseCoding: true });
        break;
      case "webp":
        image = image.webp({ quality: frame.quality });
        break;
      case "png":
        // PNG stays lossless: quality has no say in it.
        image = image.png({ compressionLevel: 9 });
        break;
    }
    try {
      const info = await step("sharp encode", () => image.toFile(frame.output));
      return { size: info.size, width: info.width, height: info.height };
    } catch (error) {
      if (/missing|no such file/i.test(String((error as Error)?.message))) {
        throw new JobFailure("corrupt_media", `no frame could be decoded at ${at}; the video may be damaged there`, { cause: error });
      }
      throw imageFailure(error);
    }
  } finally {
    await rm(frame.raw, { force: true });
  }
}

const exists = (path: string) => access(path).then(() => true, () => false);

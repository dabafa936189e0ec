// Still frames from video: where a time falls on the frame grid, what size a frame comes
// out, and grabbing one (ffmpeg decodes and scales, handing its pixels over raw; sharp crops
// or pads when asked, and encodes JPEG, PNG or WebP).
// Which frame to grab, when the caller asks for "auto" or for no black frame, is
// frame-choice.ts.
import { access, rm } from "node:fs/promises";
import type { OverlayOptions } from "sharp";
import { sharp } from "./image-process.ts";
import type { Config } from "../config.ts";
import { readToolFile } from "../attempt-files.ts";
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

/** ffmpeg's whole filter for a grab: the box, then the pixel layout sharp reads (framePixels). */
export function frameFilter(probe: MediaProbe, box: FrameBox): string {
  return `${boxFilter(box)},format=${framePixels(probe, box).format}`;
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

/** ffmpeg arguments writing one frame at `time`, scaled and cropped, as raw pixels (framePixels). */
export function grabArgs(input: string, probe: MediaProbe, time: number, box: FrameBox, output: string): string[] {
  return [
    ...inputOptions(input), "-ss", seconds(seekPoint(time, probe)), "-i", input,
    "-map", `0:${probe.video!.index}`, "-an", "-sn", "-dn", "-vf", frameFilter(probe, box), ...rawOutput(output),
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
 * stream the probe chooses (ffprobe.ts parseProbe).
 */
export function earlyGrabArgs(input: string, requested: number, output: string): string[] {
  return [...inputOptions(input), "-ss", earlySeek(requested), "-i", input, "-map", "0:V:0", "-filter_script:v", "pipe:0", ...rawOutput(output)];
}

/**
 * Its filter graph once the probe has answered: on the probe's video stream, frames dropped
 * up to grabArgs' own seek point, then scaled and cropped as there. After an input seek
 * ffmpeg's timeline starts at the seek point, so dropping `seekPoint − earlySeek` more
 * leaves the first frame at or after seekPoint: the frame grabArgs gives (tested). Null
 * when seekPoint lies before the early seek (under 6 fps; the last frame of a video whose
 * audio runs longer): the grab is then run as grabArgs, after the probe.
 */
export function earlyGrabGraph(probe: MediaProbe, requested: number, time: number, box: FrameBox): string | null {
  const skip = Number(seconds(seekPoint(time, probe))) - Number(earlySeek(requested));
  if (skip < 0) return null;
  return `trim=start=${seconds(skip)},${frameFilter(probe, box)}`;
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
 */
export function readyGrabArgs(output: string): string[] {
  return [
    ...globalOptions(), "-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0",
    "-format_whitelist", "lavfi", "-f", "lavfi", "-graph_file", "pipe:3", "-i", "graph",
    "-copyts", "-fps_mode", "passthrough", "-map", "0:v", "-filter_script:v", "pipe:0", ...rawOutput(output),
  ];
}

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
 */
export function readyGrabGraph(probe: MediaProbe, requested: number, time: number, box: FrameBox): string | null {
  const start = probe.startTime ?? 0;
  const point = Number(seconds(seekPoint(time, probe)));
  if (probe.video!.transformed || !INDEXED_CONTAINERS.has(probe.format) || point + start < 0) return null;
  if (point < Number(earlySeek(requested)) || probe.videoStreams !== 1) return null;
  return `trim=start=${seconds(point + start)},${frameFilter(probe, box)}`;
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
  /** The grab's ffmpeg already started (an EarlyFfmpeg, a ready grab): its run, given its options; it writes `frame.raw` as `args` would. */
  started?: (options: FfmpegOptions) => Promise<RunResult>,
): Promise<GrabbedFrame> {
  const at = `${Math.round(frame.time * 1000) / 1000} s`;
  const options = { signal: ctx.signal, timeoutMs: ffmpegTimeoutMs(probe.duration, ctx.config), task: `reading the frame at ${at}` };
  const run = (argv: string[]) => runFfmpeg(argv, options);
  try {
    // Seeking through the index first (`started` does the same, writing the same pixels);
    // when that gives an error or no frame, decoding up to the time.
    const seeked = await (started ? started(options) : run(args)).then(
      () => exists(frame.raw),
      (error: unknown) => (error instanceof JobFailure && error.code === "corrupt_media" ? false : Promise.reject(error)),
    );
    if (!seeked) await run(decodingSeek(args));
    throwIfAborted(ctx.signal);
    const noFrame = (cause: unknown) => new JobFailure("corrupt_media", `no frame could be decoded at ${at}; the video may be damaged there`, { cause });
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

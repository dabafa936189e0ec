// What a media input holds, read by ffprobe; and, when it holds nothing we can use, the
// failure to report in words the user can act on. Media is identified by its bytes
// (docs/security.md): only local files or the job's own loopback source, and only the
// container formats listed here.
import type { Config } from "../config.ts";
import { JobFailure } from "../errors.ts";
import { describeDuration, runFfmpeg, seconds } from "./ffmpeg.ts";
import { endedEarly, runTool } from "./spawn.ts";
import { readHead } from "../local-input.ts";
import type { InputAnswer } from "../tool-relay.ts";
import { takeReadyProbe } from "./ready-tools.ts";

/**
 * Demuxers an input may be opened with. Playlists (hls, concat), image sequences and
 * raw streams are left out: a playlist can make ffmpeg read other files, and raw streams
 * have no duration to check.
 */
export const INPUT_FORMATS = [
  "mov", "matroska", "avi", "flv", "mpegts", "mpeg", "ogg", "asf", "mxf", "dv", "ivf",
  "mp3", "wav", "w64", "aiff", "caf", "flac", "aac", "ac3", "eac3", "amr",
].join(",");

/** The protocols the job's loopback input is read with, and nothing else. */
export const LOOPBACK_PROTOCOLS = "http,tcp";

/**
 * ffmpeg's http options for the loopback input: a range answered in part (input-server.ts
 * ReadPacing) is continued at once where it ended; a second failure in a row is the read's
 * failure, without waiting (the input's own failure stops the job's tools anyway).
 */
export const LOOPBACK_RECONNECT = ["-reconnect", "1", "-reconnect_delay_max", "0"];

/**
 * Options that go before every `-i`: known containers only, and local files only, except
 * for the job's input served on loopback (input-server.ts), opened over http and nothing
 * else. (The listed demuxers open no other URL: MOV's external references, `enable_drefs`,
 * are off by default; an option only MOV knows cannot be given to every input.) An isolated
 * tool's requests go through the proxy its environment names, the tool relay itself
 * (tool-relay.ts): an option here would be in its command line, which any process reads.
 */
export function inputOptions(input?: string): string[] {
  if (input && isLoopbackSource(input)) return ["-protocol_whitelist", LOOPBACK_PROTOCOLS, ...LOOPBACK_RECONNECT, "-format_whitelist", INPUT_FORMATS];
  return ["-protocol_whitelist", "file,pipe", "-format_whitelist", INPUT_FORMATS];
}

/** The job's input on loopback (InputSource.url); every other input is a local path. */
export function isLoopbackSource(input: string): boolean {
  return input.startsWith("http://127.0.0.1:");
}

export interface VideoStream {
  index: number;
  codec: string;
  /** Displayed size: sample aspect ratio and rotation applied. */
  width: number;
  height: number;
  /** Frames per second, or null when the container does not say. */
  frameRate: number | null;
  /** Frames the container states it holds (MP4's sample count), when it does. */
  frames?: number;
  /** The exact rate of a constant-rate stream (the container's base rate equals its average), when it is one: chunks are cut on it (docs/fanout.md). */
  constantRate?: { num: number; den: number };
  /**
   * The display matrix turns or mirrors the picture: ffmpeg's command line undoes it when it
   * decodes (width and height above are already the turned picture's). Absent when not.
   */
  transformed?: true;
  /** Its pixels carry transparency (ffprobe's pix_fmt: yuva420p, rgba, …): a frame of it keeps its alpha. Absent when not. */
  alpha?: true;
  /** Its first frame's time in seconds, when not 0 (an MP4 whose sound starts first, say). */
  startTime?: number;
}

export interface AudioStream {
  index: number;
  codec: string;
  /** Bits per second, or null when the container does not say (WebM, for one). */
  bitRate: number | null;
  channels: number;
  /** Samples per second per channel, when ffprobe states it. */
  sampleRate?: number;
  /** Seconds before the first sample: an MP3's encoder delay, for one. */
  startTime: number;
}

export interface MediaProbe {
  /** Short container name: mp4, mov, webm, mkv, avi, mp3, … */
  format: string;
  /** Seconds. */
  duration: number;
  /** The container's start time in seconds (absent: 0): what ffmpeg's `-ss` counts from. */
  startTime?: number;
  size: number;
  /** Overall bits per second, or null. */
  bitRate: number | null;
  video: VideoStream | null;
  audio: AudioStream | null;
  /** How many video streams the input has, cover art (an attached picture) included; absent when not counted. */
  videoStreams?: number;
}

const PROBE_TIMEOUT_MS = 30_000;

/** ffprobe's command line for `input`: the same for a probe started by its job and for a ready one (tools/ready-tools.ts). */
export function probeArgs(input: string): string[] {
  return ["-v", "error", ...inputOptions(input), "-print_format", "json", "-show_format", "-show_streams", input];
}

/**
 * Probes a local file or the job's loopback source; any failure becomes a JobFailure (or
 * JobCancelled), told by the input's first bytes (`head`, by default read from `path`).
 * With `answer` (the loopback source's own request handler, InputSource.answer), a ready
 * probe is taken when one waits (tools/ready-tools.ts): it reads the same bytes through
 * its own URL, without a start of its own.
 */
export async function probeMedia(
  path: string,
  signal: AbortSignal,
  head: (bytes: number) => Promise<Buffer> = (bytes) => readHead(path, bytes),
  answer?: InputAnswer,
): Promise<MediaProbe> {
  const ready = answer && isLoopbackSource(path) ? takeReadyProbe() : undefined;
  let run;
  try {
    run = ready ? await ready.take(answer!, "", { signal, timeoutMs: PROBE_TIMEOUT_MS }) : await runTool("ffprobe", probeArgs(path), { signal, timeoutMs: PROBE_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof JobFailure) throw error;
    throw new JobFailure("processing_failed", "ffprobe is not available on this processor", { cause: error });
  }
  const early = endedEarly(run, signal, "reading the input's streams took longer than 30 seconds");
  if (early) throw early;
  let probe: MediaProbe | null = null;
  if (run.code === 0) {
    try {
      probe = parseProbe(JSON.parse(run.stdout));
    } catch {
      probe = null;
    }
  }
  if (!probe) throw classifyUnreadable(await head(512), run.stderr);
  return probe;
}

/** Reads ffprobe's JSON; null when it describes no audio or video stream we can use. */
export function parseProbe(json: unknown): MediaProbe | null {
  const data = json as { format?: Record<string, any>; streams?: Record<string, any>[] };
  const streams = data.streams ?? [];
  const format = data.format ?? {};
  // Cover art in audio files is a one-picture "video" stream; it is not a video.
  const videoRaw = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic);
  const audioRaw = streams.find((s) => s.codec_type === "audio" && s.disposition?.default) ?? streams.find((s) => s.codec_type === "audio");
  if (!videoRaw && !audioRaw) return null;

  const video = videoRaw ? parseVideo(videoRaw) : null;
  const audio: AudioStream | null = audioRaw
    ? {
        index: audioRaw.index,
        codec: audioRaw.codec_name ?? "unknown",
        bitRate: positive(audioRaw.bit_rate),
        channels: Number(audioRaw.channels) || 0,
        ...(positive(audioRaw.sample_rate) ? { sampleRate: positive(audioRaw.sample_rate)! } : {}),
        startTime: positive(audioRaw.start_time) ?? 0,
      }
    : null;
  const duration = positive(format.duration) ?? positive(videoRaw?.duration) ?? positive(audioRaw?.duration) ?? 0;
  // Negative start times stand too (positive() would drop them); zero is left out.
  const startTime = Number(format.start_time);
  return {
    format: containerName(String(format.format_name ?? ""), format.tags?.major_brand, streams.map((s) => s.codec_name)),
    duration,
    ...(Number.isFinite(startTime) && startTime !== 0 ? { startTime } : {}),
    size: Number(format.size) || 0,
    bitRate: positive(format.bit_rate),
    video,
    audio,
    videoStreams: streams.filter((s) => s.codec_type === "video").length,
  };
}

/** ffmpeg's pixel formats with an alpha channel (libavutil/pixdesc.c), and pal8, whose palette may hold one. */
const ALPHA_PIXEL_FORMATS = /^(yuva|gbrap|ya\d|rgba|bgra|argb|abgr|pal8$)/;

function parseVideo(s: Record<string, any>): VideoStream {
  let width = Number(s.width) || 0;
  let height = Number(s.height) || 0;
  const sar = /^(\d+):(\d+)$/.exec(String(s.sample_aspect_ratio ?? ""));
  if (sar && Number(sar[1]) > 0 && Number(sar[2]) > 0 && sar[1] !== sar[2]) {
    width = Math.round((width * Number(sar[1])) / Number(sar[2]));
  }
  // ffmpeg rotates by the display matrix when it decodes, so a portrait phone video is portrait.
  const matrix = (s.side_data_list as Record<string, any>[] | undefined)?.find((d) => d.rotation !== undefined);
  const turned = Number(matrix?.rotation ?? s.tags?.rotate ?? 0) || 0;
  if (Math.abs(turned) % 180 === 90) [width, height] = [height, width];
  const transformed = turned % 360 !== 0 || (matrix !== undefined && !isIdentity(matrix.displaymatrix));
  const frames = Number(s.nb_frames);
  const exact = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(String(s.r_frame_rate ?? ""));
  const constant = exact && s.avg_frame_rate === s.r_frame_rate && rate(s.r_frame_rate) !== null ? { num: Number(exact[1]), den: Number(exact[2]) } : undefined;
  const alpha = ALPHA_PIXEL_FORMATS.test(String(s.pix_fmt ?? ""));
  const startTime = Number(s.start_time);
  return {
    index: s.index,
    codec: s.codec_name ?? "unknown",
    width,
    height,
    frameRate: rate(s.avg_frame_rate) ?? rate(s.r_frame_rate),
    ...(Number.isInteger(frames) && frames > 0 ? { frames } : {}),
    ...(constant ? { constantRate: constant } : {}),
    ...(transformed ? { transformed: true as const } : {}),
    ...(alpha ? { alpha: true as const } : {}),
    ...(Number.isFinite(startTime) && startTime !== 0 ? { startTime } : {}),
  };
}

/** The identity display matrix, as ffprobe prints one: 16.16 fixed point, the last column 2.30. */
const IDENTITY_MATRIX = [65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30];

/** Whether ffprobe's printed display matrix ("00000000: 65536 0 0" …) leaves the picture as it is; a matrix it could not print is taken as not. */
function isIdentity(printed: unknown): boolean {
  const values = String(printed ?? "").match(/^\s*\d+:\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)/gm)?.flatMap((line) => line.trim().split(/\s+/).slice(1).map(Number));
  return values?.length === 9 && values.every((v, i) => v === IDENTITY_MATRIX[i]);
}

function positive(value: unknown): number | null {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}

function rate(value: unknown): number | null {
  const m = /^(\d+)\/(\d+)$/.exec(String(value ?? ""));
  if (!m || Number(m[2]) === 0) return null;
  const fps = Number(m[1]) / Number(m[2]);
  // Containers sometimes report a time base (90000/1) instead of a frame rate.
  return fps > 0 && fps <= 240 ? fps : null;
}

/** A short container name from ffprobe's demuxer list ("mov,mp4,m4a,…", "matroska,webm"). */
export function containerName(formatName: string, majorBrand: unknown, codecs: unknown[]): string {
  if (formatName.startsWith("mov,")) return String(majorBrand ?? "").trim() === "qt" ? "mov" : "mp4";
  if (formatName.startsWith("matroska")) {
    const webm = new Set(["vp8", "vp9", "av1", "opus", "vorbis"]);
    return codecs.every((c) => typeof c === "string" && webm.has(c)) ? "webm" : "mkv";
  }
  return formatName.split(",")[0] || "unknown";
}

export interface MediaNeeds {
  video?: boolean;
  audio?: boolean;
}

/** Refuses an input the job cannot use: a missing stream, or longer than the limit. */
export function checkMedia(probe: MediaProbe, needs: MediaNeeds, config: Pick<Config, "MAX_VIDEO_DURATION_S">): void {
  if (needs.video && !probe.video) {
    throw new JobFailure("no_video_stream", "the input has no video stream (it is audio only); send a video file");
  }
  if (needs.video && probe.video && (probe.video.width <= 0 || probe.video.height <= 0)) {
    throw new JobFailure("corrupt_media", "the video stream has no picture size; the file is damaged or incomplete");
  }
  if (needs.audio && !probe.audio) {
    throw new JobFailure("no_audio_stream", "the video has no audio stream, so there is no audio to extract");
  }
  if (probe.duration <= 0) {
    throw new JobFailure("corrupt_media", "the length of the media cannot be read; the file is damaged or incomplete");
  }
  if (probe.duration > config.MAX_VIDEO_DURATION_S) {
    throw new JobFailure(
      "duration_limit_exceeded",
      `the input is ${describeDuration(probe.duration)} long, over the limit of ${describeDuration(config.MAX_VIDEO_DURATION_S)}`,
    );
  }
}

/** Probes the job's input (its `source`: what the probe reads is all that is fetched) and checks it against what the job needs. */
export async function probeInput(
  ctx: { input: { source: string; head(bytes: number): Promise<Buffer>; answer?: InputAnswer }; signal: AbortSignal; config: Pick<Config, "MAX_VIDEO_DURATION_S"> },
  needs: MediaNeeds,
): Promise<MediaProbe> {
  const input = ctx.input;
  let probe = await probeMedia(input.source, ctx.signal, (bytes) => input.head(bytes), input.answer);
  if (probe.duration <= 0 && (probe.video || probe.audio)) {
    probe = { ...probe, duration: await measureDuration(ctx.input.source, ctx.config.MAX_VIDEO_DURATION_S, ctx.signal) };
  }
  checkMedia(probe, needs, ctx.config);
  return probe;
}

/** Reading a whole file's packets is a stream copy, no decoding: minutes at most for our largest input. */
const MEASURE_TIMEOUT_MS = 5 * 60_000;

/**
 * The length of a file whose container does not state it (Matroska or WebM written to a
 * pipe by a recorder or a browser's MediaRecorder has no Duration and no Cues): the end of
 * its last packet, from a stream copy to nowhere. Reads at most `limitS` + 1 s of media,
 * enough to tell that it is too long. 0 when no packet has a time.
 */
export async function measureDuration(path: string, limitS: number, signal: AbortSignal): Promise<number> {
  const run = await runFfmpeg([...inputOptions(path), "-i", path, "-map", "0:v?", "-map", "0:a?", "-c", "copy", "-t", seconds(limitS + 1), "-f", "null", "-"], {
    signal,
    timeoutMs: MEASURE_TIMEOUT_MS,
    task: "reading the media's length",
  });
  const times = [...run.stdout.matchAll(/^out_time_us=(\d+)$/gm)].map((m) => Number(m[1]) / 1e6);
  return Math.max(0, ...times);
}

/** Containers we open, by their first bytes; a file that starts like one but fails is corrupt. */
const CONTAINER_MAGIC: { name: string; test: (head: Buffer) => boolean }[] = [
  { name: "MP4/MOV", test: (h) => ["ftyp", "moov", "mdat", "wide", "free", "skip"].includes(h.toString("latin1", 4, 8)) },
  { name: "Matroska/WebM", test: (h) => h.readUInt32BE(0) === 0x1a45dfa3 },
  { name: "AVI", test: (h) => h.toString("latin1", 0, 4) === "RIFF" && h.toString("latin1", 8, 12) === "AVI " },
  { name: "WAV", test: (h) => h.toString("latin1", 0, 4) === "RIFF" && h.toString("latin1", 8, 12) === "WAVE" },
  { name: "FLV", test: (h) => h.toString("latin1", 0, 3) === "FLV" },
  { name: "Ogg", test: (h) => h.toString("latin1", 0, 4) === "OggS" },
  { name: "MPEG", test: (h) => h.readUInt32BE(0) === 0x000001ba },
  { name: "MPEG-TS", test: (h) => h[0] === 0x47 && h[188] === 0x47 },
  { name: "ASF/WMV", test: (h) => h.readUInt32BE(0) === 0x3026b275 },
  { name: "MP3", test: (h) => h.toString("latin1", 0, 3) === "ID3" || (h[0] === 0xff && ((h[1] ?? 0) & 0xe0) === 0xe0) },
  { name: "FLAC", test: (h) => h.toString("latin1", 0, 4) === "fLaC" },
];

/** Other things people send by mistake, so that the message can say what arrived. */
const OTHER_MAGIC: { message: string; test: (head: Buffer) => boolean }[] = [
  { message: "the input is a PNG image, not a video or audio file", test: (h) => h.readUInt32BE(0) === 0x89504e47 },
  { message: "the input is a JPEG image, not a video or audio file", test: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  { message: "the input is a GIF image, not a video or audio file", test: (h) => h.toString("latin1", 0, 4) === "GIF8" },
  { message: "the input is a WebP image, not a video or audio file", test: (h) => h.toString("latin1", 0, 4) === "RIFF" && h.toString("latin1", 8, 12) === "WEBP" },
  { message: "the input is a PDF document, not a video or audio file", test: (h) => h.toString("latin1", 0, 5) === "%PDF-" },
  { message: "the input is a playlist (M3U/HLS), not a media file; send the URL of the video itself", test: (h) => /^\s*#EXTM3U/.test(h.toString("latin1")) },
  { message: "the input is an HTML page, not a video; check that the URL points at the file itself", test: (h) => /^\s*<(!doctype html|html|head|body)/i.test(h.toString("latin1")) },
];

/** Classifies an input ffprobe could not read, by its first bytes. */
export function classifyUnreadable(head: Buffer, stderr: string): JobFailure {
  const cause = stderr.slice(-2000);
  if (head.length === 0) return new JobFailure("unsupported_media", "the input is empty (0 bytes)", { cause });
  const padded = Buffer.concat([head, Buffer.alloc(Math.max(0, 200 - head.length))]);
  const other = OTHER_MAGIC.find((m) => m.test(padded));
  if (other) return new JobFailure("unsupported_media", other.message, { cause });
  const container = CONTAINER_MAGIC.find((m) => m.test(padded));
  if (container) {
    const detail = /moov atom not found/i.test(stderr)
      ? "its index (the moov atom) is missing, which usually means the upload or recording was cut short"
      : "it is damaged or truncated";
    return new JobFailure("corrupt_media", `the input looks like a ${container.name} file but cannot be read: ${detail}`, { cause });
  }
  return new JobFailure(
    "unsupported_media",
    "the input is not a video or audio file in a supported format; send MP4, MOV, WebM, MKV, AVI, MPEG-TS or a common audio format",
    { cause },
  );
}



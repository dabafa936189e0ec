// The ladder of a videoAdaptive job and its ffmpeg arguments: which renditions an input gets,
// one run encoding them all (split and scaled from one decode), a chunk's share of them
// (processors/video-adaptive-parts.ts), each as HLS fMP4 in one file, and the copy of an
// input into the top rendition. Pure: the processors run them (docs/job-types.md: videoAdaptive).
import { ADAPTIVE_LADDER } from "../../../src/contract/jobs/video-adaptive.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { parseBitrate } from "../processors/compress-video.ts";
import { inputOptions, type MediaProbe, type VideoStream } from "./ffprobe.ts";
import { ffmpegOverlay, type PreparedWatermark } from "./watermark.ts";

type Params = JobParams<"videoAdaptive">;
/** AAC-LC, the one audio codec every HLS player decodes; stereo at most. */
const AUDIO_BITRATE = "128k";

export interface Rung {
  /** `720p`: the rendition's files are stream/720p.m3u8 and stream/720p.mp4. */
  name: string;
  /** The shorter side. */
  size: number;
  width: number;
  height: number;
  /** Target video bits per second. */
  bitrate: number;
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The ladder's bitrate for a size: the nearest rung at or above it. */
export function ladderBitrate(size: number): number {
  const rung = ADAPTIVE_LADDER.find((r) => r.height >= size) ?? ADAPTIVE_LADDER.at(-1)!;
  return parseBitrate(rung.bitrate);
}

/** A rung of `size` (its shorter side) for a picture of width × height, aspect kept, sides even. */
export function rungOf(size: number, video: Pick<VideoStream, "width" | "height">, bitrate: number): Rung {
  const portrait = video.height > video.width;
  const long = even((Math.max(video.width, video.height) * size) / Math.min(video.width, video.height));
  return { name: `${size}p`, size, width: portrait ? size : long, height: portrait ? long : size, bitrate };
}

/**
 * The renditions made for this input, smallest first: those asked for (or the default
 * ladder's, up to maxHeight, maxRenditions of them: the top, the lowest, the rest spread
 * between) no larger than the input's shorter side. None fits: one at the input's own size.
 */
export function ladderFor(params: Pick<Params, "renditions" | "maxHeight" | "maxRenditions">, video: Pick<VideoStream, "width" | "height">): Rung[] {
  const own = Math.min(video.width, video.height);
  const asked = params.renditions
    ? params.renditions.map((r) => ({ size: r.height, bitrate: r.bitrate ? parseBitrate(r.bitrate) : ladderBitrate(r.height) }))
    : ADAPTIVE_LADDER.filter((r) => r.height <= params.maxHeight).map((r) => ({ size: r.height, bitrate: parseBitrate(r.bitrate) }));
  let fitting = asked.filter((r) => r.size <= own).sort((a, b) => a.size - b.size);
  if (fitting.length === 0) {
    const size = Math.min(own - (own % 2), params.renditions ? Math.min(...params.renditions.map((r) => r.height)) : params.maxHeight);
    fitting = [{ size, bitrate: ladderBitrate(size) }];
  }
  if (!params.renditions && fitting.length > params.maxRenditions) {
    const n = params.maxRenditions;
    const picked = n === 1 ? [fitting.length - 1] : Array.from({ length: n }, (_, i) => Math.round((i * (fitting.length - 1)) / (n - 1)));
    fitting = [...new Set(picked)].map((i) => fitting[i]!);
  }
  return fitting.map((r) => rungOf(r.size, video, r.bitrate));
}

export interface Paths {
  input: string;
  /** Per rung, where ffmpeg writes its playlist and its media file. */
  rungs: { playlist: string; media: string }[];
}

/**
 * Where every rendition's keyframes fall, and nowhere else: where the input has one (beside a
 * copied top rendition, so the muxer cuts where it cut the copy), or at each multiple of
 * `segmentS` seconds. A chunk's frames (docs/fanout.md) are numbered from its own start,
 * `fromS` seconds into the video: its multiples are counted from the video's start.
 */
export type Keyframes = { at: "source" } | { at: "segments"; segmentS: number; gop: number; fromS?: number };

/**
 * The encoder's keyframe options for `stream` (`v`: an output's video; `v:2`: an output's
 * third). Scene cuts add none (`sc_threshold` 0), and every forced one is an IDR frame, where a
 * segment can begin: x264 makes one closer than `keyint_min` to the last a plain I frame, which
 * is no keyframe to the muxer (a 29.97 fps segment's 179 frames after one of 180; a chunk's first
 * frame a second after its preroll's).
 */
export function keyframeArgs(keyframes: Keyframes, stream = "v"): string[] {
  const always = [`-keyint_min:${stream}`, "1", `-sc_threshold:${stream}`, "0"];
  if (keyframes.at === "source") return [`-force_key_frames:${stream}`, "source", `-g:${stream}`, "100000", ...always];
  const { segmentS: d, gop, fromS = 0 } = keyframes;
  // The segment a chunk begins is whole: its first frame is the first at or past a multiple of d.
  const first = Math.floor(fromS / d + 1e-9);
  const expr = fromS > 0 ? `expr:gte(t+${fromS},(n_forced+${first})*${d})` : `expr:gte(t,n_forced*${d})`;
  return [`-force_key_frames:${stream}`, expr, `-g:${stream}`, String(gop), ...always];
}

/** A rung's H.264 at its bitrate, peaks at most 1.2× over a 2-second buffer, for `stream` (as keyframeArgs). */
export function rungRateArgs(rung: Rung, stream = "v"): string[] {
  return [`-b:${stream}`, String(rung.bitrate), `-maxrate:${stream}`, String(Math.round(rung.bitrate * 1.2)), `-bufsize:${stream}`, String(rung.bitrate * 2)];
}

/** The frames per segment when keyframes fall on segment multiples: x264's own interval, so it adds none between. */
export const segmentGop = (frameRate: number | null, segmentS: number) => Math.max(1, Math.round((frameRate ?? 25) * segmentS));

/**
 * The filter graph of a ladder: the picture (watermarked first when asked) split and scaled
 * once per rung, `[v0]`… in the rungs' order; `tail` ends each rung's chain (a chunk's frame
 * renumbering). A watermark goes on the picture at its displayed size, before the split: every
 * rendition is a scaled copy, so it sits at the same place and relative size in each (its
 * image is input 1). The picture is first brought to its displayed size with square pixels (a
 * pass-through for most inputs), the size the overlay is laid out for: an anamorphic
 * 1440×1080 is 1920 wide.
 */
export function ladderGraph(video: Pick<VideoStream, "index" | "width" | "height">, rungs: Rung[], watermark?: PreparedWatermark, tail = ""): { graph: string; inputs: string[] } {
  const overlay = watermark && ffmpegOverlay(watermark, { width: video.width, height: video.height });
  const source = overlay ? "marked" : `0:${video.index}`;
  const marked = overlay ? `[0:${video.index}]scale=${video.width}:${video.height},setsar=1[shown];${overlay.filter("shown", "marked")};` : "";
  const split = rungs.length > 1 ? `${marked}[${source}]split=${rungs.length}${rungs.map((_, i) => `[s${i}]`).join("")};` : marked;
  const graph = split + rungs.map((r, i) => `[${rungs.length > 1 ? `s${i}` : source}]scale=${r.width}:${r.height},setsar=1,format=yuv420p${tail}[v${i}]`).join(";");
  return { graph, inputs: overlay?.inputs ?? [] };
}

/**
 * One ffmpeg run for every rung: the decoded picture is split and scaled once per rung
 * (ladderGraph), each encoded at its bitrate (rungRateArgs) with keyframes forced at every
 * segment boundary and nowhere else (keyframeArgs), so segments start at the same times in
 * every rendition (a player switches between them at any boundary). Each rung is one hls
 * output: fMP4 in a single file, its playlist addressing segments by byte range.
 */
export function buildArgs(params: Params, probe: MediaProbe, rungs: Rung[], paths: Paths, watermark?: PreparedWatermark, alignToSource = false): string[] {
  const video = probe.video!;
  const d = params.segmentDuration;
  const withAudio = params.audio && probe.audio !== null;
  const { graph, inputs } = ladderGraph(video, rungs, watermark);
  const keyframes: Keyframes = alignToSource ? { at: "source" } : { at: "segments", segmentS: d, gop: segmentGop(video.frameRate, d) };
  const args = [...inputOptions(paths.input), "-i", paths.input, ...inputs, "-filter_complex", graph];
  rungs.forEach((r, i) => {
    args.push("-map", `[v${i}]`);
    if (withAudio) args.push("-map", `0:${probe.audio!.index}`);
    args.push("-c:v", "libx264", "-preset", "medium", "-profile:v", "high", ...rungRateArgs(r), ...keyframeArgs(keyframes));
    // Beside a copied top rendition each frame keeps its own time, so the muxer cuts where it cut the copy (hlsOutput).
    if (alignToSource) args.push("-fps_mode", "passthrough");
    if (withAudio) args.push(...audioArgs(probe.audio!.channels));
    else args.push("-an");
    args.push("-sn", "-dn", ...hlsOutput(d, paths.rungs[i]!));
  });
  return args;
}

/** The sound of every rendition: AAC-LC, at most stereo. */
export const audioArgs = (channels: number): string[] => ["-c:a", "aac", "-b:a", AUDIO_BITRATE, ...(channels > 2 ? ["-ac", "2"] : [])];

/**
 * One rendition's hls output: fMP4 in a single file, its playlist addressing segments by
 * byte range. The muxer cuts at the first keyframe past each multiple of `d` seconds, so
 * renditions with keyframes at the same times are cut at the same times.
 */
export function hlsOutput(d: number, paths: Paths["rungs"][number]): string[] {
  return [
    "-f", "hls", "-hls_time", String(d), "-hls_playlist_type", "vod", "-hls_list_size", "0",
    "-hls_segment_type", "fmp4", "-hls_flags", "single_file+independent_segments",
    "-hls_segment_filename", paths.media, paths.playlist,
  ];
}

/** The copy of the input's video (and sound) into the top rendition's files. */
export function copyArgs(probe: MediaProbe, audio: "copy" | "encode" | "none", segmentDuration: number, input: string, paths: Paths["rungs"][number]): string[] {
  const args = [...inputOptions(input), "-i", input, "-map", `0:${probe.video!.index}`];
  if (audio !== "none") args.push("-map", `0:${probe.audio!.index}`);
  args.push("-c:v", "copy");
  if (audio === "copy") args.push("-c:a", "copy");
  else if (audio === "encode") args.push(...audioArgs(probe.audio!.channels));
  else args.push("-an");
  return [...args, "-sn", "-dn", ...hlsOutput(segmentDuration, paths)];
}


// One processor module per job type (processors/<type>.ts), listed here: the type check
// fails naming a type of the registry (src/contract/registry.ts) that has none.
import type { JobType } from "../../../src/contract/registry.ts";
import { compressImage } from "./compress-image.ts";
import { compressVideo } from "./compress-video.ts";
import { extractAudio } from "./extract-audio.ts";
import { audioWaveform } from "./audio-waveform.ts";
import { videoAdaptive } from "./video-adaptive.ts";
import { videoClip } from "./video-clip.ts";
import { videoConcat } from "./video-concat.ts";
import { videoExtraction } from "./video-extraction.ts";
import { videoStoryboard } from "./video-storyboard.ts";
import { videoPreview } from "./video-preview.ts";
import { videoThumbnail } from "./video-thumbnail.ts";
import { compressPdf } from "./compress-pdf.ts";
import type { Processor } from "./types.ts";
import { probeArgs } from "../tools/ffprobe.ts";
import { ffmpegWritesJpeg, readyGrabArgs, type FrameFormat, type FrameShape } from "../tools/frames.ts";

export const processors: { [T in JobType]: Processor<T> } = {
  compressImage,
  compressVideo,
  videoThumbnail,
  extractAudio,
  audioWaveform,
  videoExtraction,
  videoStoryboard,
  videoPreview,
  compressPdf,
  videoAdaptive,
  videoClip,
  videoConcat,
};

/**
 * Types whose processor reads `ctx.input.source` as its tools need it (a seek reads the
 * bytes it lands on; a whole read starts while the rest arrives). Every other type starts
 * once its input is a complete local file at `ctx.input.path` (docs/architecture.md, "How
 * the processor reads an input").
 */
export const READS_INPUT_AS_NEEDED: ReadonlySet<JobType> = new Set<JobType>([
  "videoThumbnail",
  "videoExtraction",
  "extractAudio",
  "audioWaveform",
  "compressVideo",
  "videoPreview",
  "videoStoryboard",
  "videoAdaptive",
  "videoClip",
  "videoConcat",
]);

/**
 * Types whose processor calls sharp on every job (tools/image-process.ts): their attempt
 * starts its image tool as it starts, so its start (~80 ms of a Node process loading
 * libvips) overlaps the input's fetch (startsImageTool).
 */
export const STARTS_IMAGE_TOOL: ReadonlySet<JobType> = new Set<JobType>(["compressImage", "videoThumbnail", "videoExtraction", "videoStoryboard", "videoPreview", "audioWaveform"]);

/**
 * Whether a job's attempt starts its image tool as it starts (STARTS_IMAGE_TOOL, or a
 * watermark). Not a thumbnail whose JPEG ffmpeg writes (tools/frames.ts ffmpegWritesJpeg):
 * it calls sharp only for a video with alpha, and starts the tool then. Taking a ready one
 * would have another started a moment later, in the middle of the grab's decode.
 */
export function startsImageTool(type: JobType, params: unknown): boolean {
  const shape = params as FrameShape & { format: FrameFormat; watermark?: unknown };
  if (shape.watermark) return true;
  if (type === "videoThumbnail" && ffmpegWritesJpeg(shape)) return false;
  return STARTS_IMAGE_TOOL.has(type);
}

/**
 * The processes kept started for jobs (tools/ready-tools.ts): a probe, as every video and
 * audio job's begins, and a thumbnail's grab of one frame, its JPEG at videoThumbnail's
 * default quality until a job asks for another (checked against the contract in a test).
 */
export const readyKinds = {
  probe: probeArgs,
  grab: (_url: string, output: string, jpeg?: { output: string; quality: number }) => readyGrabArgs(output, jpeg!),
  grabJpegQuality: 85,
};

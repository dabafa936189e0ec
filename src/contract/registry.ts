// The one list of job types. Adding a type is a schema file in jobs/ plus a line here
// (and a processor module in container/src/processors/).
import type { z } from "zod";
import { compressImageParams, compressImageResult } from "./jobs/compress-image.ts";
import { compressPdfParams, compressPdfResult } from "./jobs/compress-pdf.ts";
import { compressVideoParams, compressVideoResult } from "./jobs/compress-video.ts";
import { extractAudioParams, extractAudioResult } from "./jobs/extract-audio.ts";
import { videoExtractionParams, videoExtractionResult } from "./jobs/video-extraction.ts";
import { videoThumbnailParams, videoThumbnailResult } from "./jobs/video-thumbnail.ts";

export const jobTypes = {
  compressVideo: { httpName: "compress-video", params: compressVideoParams, result: compressVideoResult },
  compressImage: { httpName: "compress-image", params: compressImageParams, result: compressImageResult },
  compressPdf: { httpName: "compress-pdf", params: compressPdfParams, result: compressPdfResult },
  videoThumbnail: { httpName: "video-thumbnail", params: videoThumbnailParams, result: videoThumbnailResult },
  extractAudio: { httpName: "extract-audio", params: extractAudioParams, result: extractAudioResult },
  videoExtraction: { httpName: "video-extraction", params: videoExtractionParams, result: videoExtractionResult },
} as const;

/** Canonical (client-library) job type name, such as `compressImage`. */
export type JobType = keyof typeof jobTypes;
/** HTTP job type name, such as `compress-image`. */
export type HttpJobType = (typeof jobTypes)[JobType]["httpName"];

export type JobParams<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["params"]>;
export type JobParamsInput<T extends JobType = JobType> = z.input<(typeof jobTypes)[T]["params"]>;
export type JobResult<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["result"]>;

export const JOB_TYPES = Object.keys(jobTypes) as JobType[];
export const HTTP_JOB_TYPES = JOB_TYPES.map((t) => jobTypes[t].httpName) as HttpJobType[];

const byHttpName = new Map<string, JobType>(JOB_TYPES.map((t) => [jobTypes[t].httpName, t]));

/** Either spelling of a type to the canonical name, or undefined when it is neither. */
export function canonicalJobType(name: string): JobType | undefined {
  if (Object.hasOwn(jobTypes, name)) return name as JobType;
  return byHttpName.get(name);
}

export function httpJobType(type: JobType): HttpJobType {
  return jobTypes[type].httpName;
}

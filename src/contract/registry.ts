// The one list of job types and their schemas. Adding a type is a schema file in jobs/,
// a name in names.ts, a line here, and a processor module in container/src/processors/.
import type { z } from "zod";
import { compressImageParams, compressImageResult } from "./jobs/compress-image.ts";
import { compressPdfParams, compressPdfResult } from "./jobs/compress-pdf.ts";
import { compressVideoParams, compressVideoResult } from "./jobs/compress-video.ts";
import { extractAudioParams, extractAudioResult } from "./jobs/extract-audio.ts";
import { videoAdaptiveParams, videoAdaptiveResult } from "./jobs/video-adaptive.ts";
import { videoExtractionParams, videoExtractionResult } from "./jobs/video-extraction.ts";
import { videoStoryboardParams, videoStoryboardResult } from "./jobs/video-storyboard.ts";
import { videoPreviewParams, videoPreviewResult } from "./jobs/video-preview.ts";
import { videoThumbnailParams, videoThumbnailResult } from "./jobs/video-thumbnail.ts";
import type { JobType } from "./names.ts";

export * from "./names.ts";

export const jobTypes = {
  compressVideo: { params: compressVideoParams, result: compressVideoResult },
  compressImage: { params: compressImageParams, result: compressImageResult },
  compressPdf: { params: compressPdfParams, result: compressPdfResult },
  videoThumbnail: { params: videoThumbnailParams, result: videoThumbnailResult },
  extractAudio: { params: extractAudioParams, result: extractAudioResult },
  videoExtraction: { params: videoExtractionParams, result: videoExtractionResult },
  videoStoryboard: { params: videoStoryboardParams, result: videoStoryboardResult },
  videoPreview: { params: videoPreviewParams, result: videoPreviewResult },
  videoAdaptive: { params: videoAdaptiveParams, result: videoAdaptiveResult },
} as const satisfies Record<JobType, { params: z.ZodType; result: z.ZodType }>;

export type JobParams<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["params"]>;
export type JobParamsInput<T extends JobType = JobType> = z.input<(typeof jobTypes)[T]["params"]>;
export type JobResult<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["result"]>;

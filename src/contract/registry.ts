// The one list of job types: each schema file in jobs/ defines one, and this lists it. The
// names (names.gen.ts), the OpenAPI document and the client's types are generated from it
// (docs/architecture.md, "Adding a job type").
import type { z } from "zod";
import type { JobTypeDefinition } from "./common.ts";
import { compressImage } from "./jobs/compress-image.ts";
import { compressPdf } from "./jobs/compress-pdf.ts";
import { compressVideo } from "./jobs/compress-video.ts";
import { extractAudio } from "./jobs/extract-audio.ts";
import { audioWaveform } from "./jobs/audio-waveform.ts";
import { videoAdaptive } from "./jobs/video-adaptive.ts";
import { videoClip } from "./jobs/video-clip.ts";
import { videoConcat } from "./jobs/video-concat.ts";
import { videoExtraction } from "./jobs/video-extraction.ts";
import { videoStoryboard } from "./jobs/video-storyboard.ts";
import { videoPreview } from "./jobs/video-preview.ts";
import { videoThumbnail } from "./jobs/video-thumbnail.ts";
import type { JobType } from "./names.ts";

export * from "./names.ts";

// In this order the API lists the types (its error messages, the OpenAPI document). A type
// here and not in names.gen.ts, or the reverse, fails the type check: run
// `npm run generate -w @media-jobs/client`.
export const jobTypes = {
  compressVideo,
  compressImage,
  compressPdf,
  videoThumbnail,
  extractAudio,
  audioWaveform,
  videoExtraction,
  videoStoryboard,
  videoPreview,
  videoAdaptive,
  videoClip,
  videoConcat,
} as const satisfies { [T in JobType]: JobTypeDefinition<T> };

export type JobParams<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["params"]>;
export type JobParamsInput<T extends JobType = JobType> = z.input<(typeof jobTypes)[T]["params"]>;
export type JobResult<T extends JobType = JobType> = z.output<(typeof jobTypes)[T]["result"]>;

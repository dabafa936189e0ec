// Job type names in both dialects. Free of runtime dependencies, so the client library
// can use it as it is.
export const JOB_TYPE_HTTP_NAMES = {
  compressVideo: "compress-video",
  compressImage: "compress-image",
  compressPdf: "compress-pdf",
  videoThumbnail: "video-thumbnail",
  extractAudio: "extract-audio",
  videoExtraction: "video-extraction",
  videoStoryboard: "video-storyboard",
  videoPreview: "video-preview",
  videoAdaptive: "video-adaptive",
} as const;

/** Canonical (client-library) job type name, such as `compressImage`. */
export type JobType = keyof typeof JOB_TYPE_HTTP_NAMES;
/** HTTP job type name, such as `compress-image`. */
export type HttpJobType = (typeof JOB_TYPE_HTTP_NAMES)[JobType];

export const JOB_TYPES = Object.keys(JOB_TYPE_HTTP_NAMES) as JobType[];
export const HTTP_JOB_TYPES = Object.values(JOB_TYPE_HTTP_NAMES) as HttpJobType[];

const byHttpName = new Map<string, JobType>(JOB_TYPES.map((t) => [JOB_TYPE_HTTP_NAMES[t], t]));

/** Either spelling of a type to the canonical name, or undefined when it is neither. */
export function canonicalJobType(name: string): JobType | undefined {
  if (Object.hasOwn(JOB_TYPE_HTTP_NAMES, name)) return name as JobType;
  return byHttpName.get(name);
}

export function httpJobType(type: JobType): HttpJobType {
  return JOB_TYPE_HTTP_NAMES[type];
}

// Generated from src/contract/registry.ts by packages/client/scripts/generate-types.ts: each
// job type's canonical name and its HTTP name (the same, kebab-cased). Do not edit; run
// `npm run generate -w @media-jobs/client`.
export const JOB_TYPE_HTTP_NAMES = {
  compressVideo: "compress-video",
  compressImage: "compress-image",
  compressPdf: "compress-pdf",
  videoThumbnail: "video-thumbnail",
  extractAudio: "extract-audio",
  audioWaveform: "audio-waveform",
  videoExtraction: "video-extraction",
  videoStoryboard: "video-storyboard",
  videoPreview: "video-preview",
  videoAdaptive: "video-adaptive",
  videoClip: "video-clip",
  videoConcat: "video-concat",
} as const;

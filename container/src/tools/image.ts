// Identifying images by their bytes (sharp reads magic numbers, never names or
// Content-Type) and turning sharp's errors into job failures a user can act on.
import type { Metadata } from "sharp";
import { sharp } from "./image-process.ts";
import { JobFailure } from "../errors.ts";
import { readHead } from "../local-input.ts";
import { step } from "../steps.ts";

export type OutputImageFormat = "jpg" | "png" | "webp" | "avif";

/** Input formats we decode. SVG is refused: it can reference other files. */
export const ACCEPTED_IMAGE_FORMATS = new Set(["jpeg", "png", "webp", "avif", "heif", "gif", "tiff"]);

export interface ImageInfo {
  format: string;
  /** Displayed size, after EXIF orientation. */
  width: number;
  height: number;
  orientation: number;
  hasAlpha: boolean;
  hasMetadata: boolean;
  /** An HEVC-coded HEIF (HEIC): sharp cannot decode it, heic.ts can. */
  hevc: boolean;
}

export async function identifyImage(path: string, maxPixels: number): Promise<ImageInfo> {
  let meta: Metadata;
  try {
    meta = await step("sharp metadata", () => sharp(path, { limitInputPixels: maxPixels }).metadata());
  } catch (error) {
    throw await notAnImage(path, error);
  }
  if (!meta.format || !ACCEPTED_IMAGE_FORMATS.has(meta.format)) {
    throw new JobFailure(
      "unsupported_media",
      `the input is a ${meta.format?.toUpperCase() ?? "file"} image, which is not supported; send JPEG, PNG, WebP, AVIF, HEIC, GIF or TIFF`,
    );
  }
  if ((meta.width ?? 0) * (meta.height ?? 0) > maxPixels) {
    throw new JobFailure("input_too_large", `the image is ${meta.width}×${meta.height} pixels, over the limit of ${maxPixels} pixels`);
  }
  return {
    format: meta.format,
    width: meta.autoOrient?.width ?? meta.width ?? 0,
    height: meta.autoOrient?.height ?? meta.height ?? 0,
    orientation: meta.orientation ?? 1,
    hasAlpha: meta.hasAlpha ?? false,
    hasMetadata: Boolean(meta.exif || meta.xmp || meta.iptc),
    hevc: meta.format === "heif" && meta.compression === "hevc",
  };
}

/** Kinds of files sent as images that are refused, by their first bytes. */
const REFUSED_KINDS: [string, RegExp][] = [
  ["an SVG drawing (it can name other files; send it rasterized)", /^(\xef\xbb\xbf)?\s*(<\?xml[^>]*>\s*)?(<!--[^]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/i],
  ["a PDF document (compressPdf takes PDFs)", /^%PDF-/],
  ["a PostScript or EPS program", /^(%!|\xc5\xd0\xd3\xc6)/],
];

async function notAnImage(path: string, cause: unknown): Promise<JobFailure> {
  const message = String((cause as Error)?.message ?? cause);
  if (/pixel limit/i.test(message)) {
    return new JobFailure("input_too_large", "the image has more pixels than the processor accepts", { cause });
  }
  const head = await readHead(path, 512);
  if (head.length === 0) return new JobFailure("unsupported_media", "the input is empty (0 bytes)", { cause });
  if (/^\s*<(!doctype html|html|head|body)/i.test(head.toString("latin1"))) {
    return new JobFailure("unsupported_media", "the input is an HTML page, not an image; check that the URL points at the file itself", { cause });
  }
  // The image tool decodes only the accepted formats (image-worker.ts): what else the bytes are is said here, for the user.
  const refused = REFUSED_KINDS.find(([, pattern]) => pattern.test(head.toString("latin1")));
  if (refused) return new JobFailure("unsupported_media", `the input is ${refused[0]}, which is not supported; send JPEG, PNG, WebP, AVIF, HEIC, GIF or TIFF`, { cause });
  if (/unsupported image format/i.test(message)) {
    return new JobFailure("unsupported_media", `the input (${head.length < 512 ? `${head.length} bytes` : "its first bytes"}) is not an image in a supported format; send JPEG, PNG, WebP, AVIF, HEIC, GIF or TIFF`, { cause });
  }
  return new JobFailure("corrupt_media", "the image is damaged or truncated and cannot be decoded", { cause });
}

/** Maps a sharp failure while decoding or encoding to a job failure. */
export function imageFailure(error: unknown): JobFailure {
  if (error instanceof JobFailure) return error;
  const message = String((error as Error)?.message ?? error);
  if (/pixel limit/i.test(message)) return new JobFailure("input_too_large", "the image has more pixels than the processor accepts", { cause: error });
  if (/premature end|truncated|corrupt|invalid|bad (huffman|marker)|read error|not a|unexpected end/i.test(message)) {
    return new JobFailure("corrupt_media", "the image is damaged or truncated and cannot be decoded", { cause: error });
  }
  return new JobFailure("processing_failed", "the image could not be processed", { cause: error });
}

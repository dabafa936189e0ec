// compressImage with sharp: auto-orient by EXIF, scale down inside maxWidth × maxHeight (never
// up) or shape to that box by `fit` and `position`, re-encode, and keep metadata unless asked
// to strip it. Never returns a larger file than the input when the input itself is an acceptable answer.
import { copyFile } from "node:fs/promises";
import type { OutputInfo } from "sharp";
import { sharp } from "../tools/image-process.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import { claimFile, readToolFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { step } from "../steps.ts";
import { decodeHeic } from "../tools/heic.ts";
import { padColour, sharpPosition } from "../tools/crop.ts";
import { identifyImage, imageFailure, type OutputImageFormat } from "../tools/image.ts";
import { prepareWatermark, sharpOverlay, withWatermark } from "../tools/watermark.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";

type Params = JobParams<"compressImage">;

export const CONTENT_TYPES: Record<OutputImageFormat, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
};

/** The output format: the one asked for, else the input's where we can encode it. */
export function chooseFormat(requested: Params["format"], inputFormat: string, hasAlpha: boolean): OutputImageFormat {
  if (requested) return requested;
  switch (inputFormat) {
    case "jpeg":
      return "jpg";
    case "png":
    case "webp":
    case "avif":
      return inputFormat;
    case "heif":
      return "avif";
    default:
      // GIF and TIFF: PNG keeps transparency, JPEG is smaller for opaque pictures.
      return hasAlpha ? "png" : "jpg";
  }
}

/** Encoder options per format for a 1–100 quality. */
export function encoderOptions(format: OutputImageFormat, quality: number) {
  switch (format) {
    case "jpg":
      return { id: "jpeg", options: { quality, mozjpeg: true } } as const;
    case "webp":
      return { id: "webp", options: { quality, effort: 4 } } as const;
    case "avif":
      // AVIF's scale is harsher than JPEG's: the same number looks worse, so lift it a little.
      return { id: "avif", options: { quality: Math.min(100, Math.round(quality * 0.8 + 15)), effort: 4 } } as const;
    case "png":
      // Below 100, quantize to a palette (lossy, like pngquant); 100 stays lossless.
      return quality < 100
        ? ({ id: "png", options: { palette: true, quality, compressionLevel: 9, effort: 7 } } as const)
        : ({ id: "png", options: { compressionLevel: 9, adaptiveFiltering: true } } as const);
  }
}

export async function compressImage(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressImage">> {
  const { input, signal, config } = ctx;
  const source = await identifyImage(input.path, config.MAX_INPUT_PIXELS);
  const fit = params.fit ?? "inside";
  // cover, contain and fill give exactly the box (the contract let them through only with both sides), so it is bounded as a decoded image is.
  if (fit !== "inside" && params.maxWidth! * params.maxHeight! > config.MAX_INPUT_PIXELS) {
    throw new JobFailure("invalid_input", `a ${params.maxWidth}×${params.maxHeight} output is larger than this service produces (${config.MAX_INPUT_PIXELS} pixels); ask for a smaller box`);
  }
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(10);
  throwIfAborted(signal);

  const format = chooseFormat(params.format, source.format, source.hasAlpha);
  const name = `image.${format}`;
  const outputPath = ctx.addOutput(name, CONTENT_TYPES[format]);
  // A phone's HEIC is decoded by libheif first, its rotation applied there (tools/heic.ts).
  // Read by the processor from a file the tool wrote: its bytes, never through a link it left (attempt-files.ts).
  const decoded = source.hevc ? await readToolFile(await decodeHeic(input.path, ctx.workDir, signal)) : undefined;
  if (decoded) ctx.setProgress(40);
  throwIfAborted(signal);
  let pipeline = sharp(decoded ?? input.path, { limitInputPixels: config.MAX_INPUT_PIXELS, failOn: "truncated" });
  if (!decoded) pipeline = pipeline.autoOrient();
  if (fit !== "inside") {
    // The box asked for, scaled up or down.
    pipeline = pipeline.resize({
      width: params.maxWidth,
      height: params.maxHeight,
      fit,
      position: sharpPosition(params.position ?? "center"),
      background: padColour(params.background, format !== "jpg"),
    });
  } else if (params.maxWidth || params.maxHeight) {
    pipeline = pipeline.resize({ width: params.maxWidth, height: params.maxHeight, fit: "inside", withoutEnlargement: true });
  }
  if (watermark) {
    // Transparent only where the input was, or where contain pads with nothing (no background, a format with alpha).
    const transparentPadding = fit === "contain" && !params.background && format !== "jpg";
    pipeline = withWatermark(pipeline, await sharpOverlay(watermark, outputFloor(source, params)), source.hasAlpha || transparentPadding);
  }
  // The decoded HEIC's EXIF still says how the camera was held; the pixels are upright now.
  if (!params.stripMetadata) pipeline = decoded ? pipeline.keepMetadata().withMetadata({ orientation: 1 }) : pipeline.keepMetadata();
  const encoder = encoderOptions(format, params.quality);
  pipeline = pipeline.toFormat(encoder.id, encoder.options);

  let info: OutputInfo;
  try {
    info = await step("sharp encode", () => pipeline.toFile(outputPath));
  } catch (error) {
    throw imageFailure(error);
  }
  ctx.setProgress(90);
  throwIfAborted(signal);

  let size = info.size;
  let keptOriginal = false;
  const sameGeometry = info.width === source.width && info.height === source.height && source.orientation <= 1;
  const sameFormat = chooseFormat(undefined, source.format, source.hasAlpha) === format && source.format !== "heif";
  const metadataOk = !params.stripMetadata || !source.hasMetadata;
  if (size >= input.size && sameFormat && sameGeometry && metadataOk && !watermark) {
    // The encode's file was the tool's: the processor writes only a name it has claimed (attempt-files.ts).
    await claimFile(outputPath);
    await copyFile(input.path, outputPath);
    size = input.size;
    keptOriginal = true;
  }
  if (info.width === 0 || info.height === 0) throw new JobFailure("processing_failed", "the image encoder produced an empty image");

  return {
    url: name,
    size,
    width: info.width,
    height: info.height,
    format,
    compressionRatio: ratio(size, input.size),
    keptOriginal,
    source: { size: input.size, width: source.width, height: source.height, format: source.format },
  };
}

/**
 * The output's size, or a pixel less on a side that `inside` scales: sharp rounds that side its
 * own way (a 4000×2999 picture inside 800 px comes out 800×599, not 600), and a watermark laid
 * out for this size fits, placed by gravity, on the picture sharp makes (tools/watermark.ts).
 */
export function outputFloor(source: { width: number; height: number }, params: Pick<Params, "fit" | "maxWidth" | "maxHeight">): { width: number; height: number } {
  if ((params.fit ?? "inside") !== "inside") return { width: params.maxWidth!, height: params.maxHeight! };
  const shrink = Math.max(1, params.maxWidth ? source.width / params.maxWidth : 1, params.maxHeight ? source.height / params.maxHeight : 1);
  if (shrink === 1) return { width: source.width, height: source.height };
  return { width: Math.max(1, Math.round(source.width / shrink) - 1), height: Math.max(1, Math.round(source.height / shrink) - 1) };
}

export function ratio(output: number, input: number): number {
  return input > 0 ? Math.round((output / input) * 10_000) / 10_000 : 1;
}

// Watermarks (src/contract/common.ts `watermark`): an image fetched by URL or a line of text,
// laid over a picture by sharp (compressImage, frames) or over a video by ffmpeg (overlay,
// drawtext). prepareWatermark fetches and checks once per job; the overlays are laid out by
// overlayBox, so both tools put the same watermark in the same place.
import { access, open, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OverlayOptions, Sharp } from "sharp";
import { sharp } from "./image-process.ts";
import type { Watermark, WatermarkPosition } from "../../../src/contract/common.ts";
import type { Config } from "../config.ts";
import { claimFile } from "../attempt-files.ts";
import { JobFailure } from "../errors.ts";
import { fetchInput } from "../fetch-input.ts";
import { step } from "../steps.ts";

/** An image's width as a fraction of the output's width, when `size` is not given. */
export const DEFAULT_IMAGE_SIZE = 0.15;
/** A text's height (its font size) as a fraction of the output's height, when `size` is not given. */
export const DEFAULT_TEXT_SIZE = 0.05;
/** The shadow under text, as a fraction of the font size (at least 1 px), and its strength beside the text's. */
const SHADOW_OFFSET = 1 / 18;
const SHADOW_ALPHA = 0.6;
/** The font size text is measured at (prepareWatermark); it is drawn at the size the output needs. */
const MEASURE_PX = 100;

export type WatermarkConfig = Pick<
  Config,
  | "WATERMARK_MAX_BYTES"
  | "WATERMARK_MAX_PIXELS"
  | "WATERMARK_TOTAL_TIMEOUT_MS"
  | "WATERMARK_FONT_FILE"
  | "WATERMARK_FONT_FAMILY"
  | "INPUT_CONNECT_TIMEOUT_MS"
  | "INPUT_IDLE_TIMEOUT_MS"
  | "ALLOW_PRIVATE_NETWORK_INPUTS"
  | "ALLOWED_INPUT_PORTS"
>;

export interface WatermarkContext {
  workDir: string;
  signal: AbortSignal;
  config: WatermarkConfig;
}

interface Placement {
  position: WatermarkPosition;
  /** Fraction of the output's shorter side. */
  margin: number;
  opacity: number;
  /** Image: width / output width. Text: font size / output height. */
  size: number;
}

/** A watermark ready to be laid over any number of outputs of any size. */
export type PreparedWatermark = Placement &
  (
    | { kind: "image"; /** The image decoded and written as an RGBA PNG, upright. */ path: string; width: number; height: number }
    | {
        kind: "text";
        text: string;
        fontFile: string;
        fontFamily: string;
        /** The text's width and height per pixel of font size, measured by sharp (Pango) in the font drawn. */
        widthPerPx: number;
        heightPerPx: number;
      }
  );

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
  /** The margin in pixels. */
  margin: number;
  /** Text only: the font size, in pixels, and the shadow's offset. */
  fontSize?: number;
  shadow?: number;
}

/** Fetches and checks the image, or checks the font and measures the text. Fails with a watermark_* code the user can act on. */
export async function prepareWatermark(w: Watermark, ctx: WatermarkContext): Promise<PreparedWatermark> {
  const placement = { position: w.position, margin: w.margin, opacity: w.opacity };
  if (w.text !== undefined) return { ...placement, size: w.size ?? DEFAULT_TEXT_SIZE, ...(await measureText(w.text, ctx)) };
  return { ...placement, size: w.size ?? DEFAULT_IMAGE_SIZE, ...(await fetchImage(w.url!, ctx)) };
}

async function fetchImage(url: string, ctx: WatermarkContext): Promise<{ kind: "image"; path: string; width: number; height: number }> {
  const { config } = ctx;
  const download = join(ctx.workDir, "watermark.download");
  try {
    // Names in a directory the tools write in are claimed before the processor writes them (attempt-files.ts).
    await claimFile(download);
    await fetchInput(url, download, {
      signal: ctx.signal,
      limits: {
        MAX_INPUT_BYTES: config.WATERMARK_MAX_BYTES,
        INPUT_CONNECT_TIMEOUT_MS: config.INPUT_CONNECT_TIMEOUT_MS,
        INPUT_IDLE_TIMEOUT_MS: config.INPUT_IDLE_TIMEOUT_MS,
        INPUT_TOTAL_TIMEOUT_MS: config.WATERMARK_TOTAL_TIMEOUT_MS,
        ALLOW_PRIVATE_NETWORK_INPUTS: config.ALLOW_PRIVATE_NETWORK_INPUTS,
        ALLOWED_INPUT_PORTS: config.ALLOWED_INPUT_PORTS,
      },
    });
  } catch (error) {
    if (!(error instanceof JobFailure)) throw error;
    // The fetcher speaks of "the input"; here it fetched the watermark, with the same rules.
    const message = error.message.replace(/\bthe input\b/g, "the watermark image");
    if (error.code === "input_too_large") {
      throw new JobFailure("watermark_invalid", `${message}; send a smaller image (a logo of a few hundred pixels is plenty)`, { cause: error });
    }
    throw new JobFailure("watermark_unavailable", `the watermark could not be downloaded: ${message}`, { cause: error });
  }
  try {
    const format = await rasterFormat(download);
    if (!format) {
      throw new JobFailure("watermark_invalid", "the watermark URL did not give a PNG, JPEG, WebP or AVIF image (SVG and HTML are refused); check that it points at the image file itself");
    }
    const path = join(ctx.workDir, "watermark.png");
    try {
      const info = await step("sharp watermark", () =>
        sharp(download, { limitInputPixels: config.WATERMARK_MAX_PIXELS, failOn: "truncated" }).autoOrient().ensureAlpha().png({ compressionLevel: 1 }).toFile(path),
      );
      return { kind: "image", path, width: info.width, height: info.height };
    } catch (error) {
      if (/pixel limit/i.test(String((error as Error)?.message))) {
        throw new JobFailure("watermark_invalid", `the watermark image has more than ${config.WATERMARK_MAX_PIXELS} pixels; send a smaller image`, { cause: error });
      }
      throw new JobFailure("watermark_invalid", `the watermark ${format.toUpperCase()} image is damaged or truncated and cannot be decoded`, { cause: error });
    }
  } finally {
    await rm(download, { force: true });
  }
}

/**
 * The format by the file's first bytes, before any decoder sees it: only the rasters sharp
 * reads without other files. SVG (which may reference files and URLs), HTML and the rest are
 * refused here, whatever the server said the file was.
 */
async function rasterFormat(path: string): Promise<"png" | "jpeg" | "webp" | "avif" | null> {
  const file = await open(path, "r");
  const head = Buffer.alloc(16);
  try {
    await file.read(head, 0, 16, 0);
  } finally {
    await file.close();
  }
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "webp";
  if (head.toString("latin1", 4, 8) === "ftyp" && /^avi[fs]$/.test(head.toString("latin1", 8, 12))) return "avif";
  return null;
}

type PreparedText = Omit<Extract<PreparedWatermark, { kind: "text" }>, keyof Placement>;

async function measureText(text: string, ctx: WatermarkContext): Promise<PreparedText> {
  const { WATERMARK_FONT_FILE: fontFile, WATERMARK_FONT_FAMILY: fontFamily } = ctx.config;
  if (!(await access(fontFile).then(() => true, () => false))) {
    throw new JobFailure("processing_failed", "text watermarks are not available on this processor (its font is missing); use an image watermark", {
      cause: `WATERMARK_FONT_FILE ${fontFile} does not exist`,
    });
  }
  const { info } = await renderText({ text, fontFile, fontFamily }, MEASURE_PX, "white");
  return { kind: "text", text, fontFile, fontFamily, widthPerPx: info.width / MEASURE_PX, heightPerPx: info.height / MEASURE_PX };
}

/** Text as Pango markup: sharp's text input reads markup, so `<`, `>`, `&` and quotes are entities. */
export function pangoText(text: string, colour: string): string {
  const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<span foreground="${colour}">${escaped}</span>`;
}

function renderText(t: { text: string; fontFile: string; fontFamily: string }, fontSize: number, colour: string) {
  // At 72 dpi a point is a pixel, so the font size is the one drawtext is given.
  return step("sharp watermark", () =>
    sharp({ text: { text: pangoText(t.text, colour), font: `${t.fontFamily} ${fontSize}`, fontfile: t.fontFile, dpi: 72, rgba: true } })
      .png()
      .toBuffer({ resolveWithObject: true }),
  );
}

/**
 * Where the watermark goes on an output of `frame`'s size: `size` of its width (image) or
 * height (text's font size), made smaller when it would not fit inside the margins, at
 * `position`, `margin` × the shorter side from the edges it is near.
 */
export function overlayBox(w: PreparedWatermark, frame: { width: number; height: number }): Box {
  const W = frame.width;
  const H = frame.height;
  const margin = Math.min(Math.round(w.margin * Math.min(W, H)), Math.floor((Math.min(W, H) - 1) / 2));
  const roomW = W - 2 * margin;
  const roomH = H - 2 * margin;
  let width: number;
  let height: number;
  let fontSize: number | undefined;
  let shadow: number | undefined;
  if (w.kind === "image") {
    const wanted = w.size * W;
    const scale = Math.min(wanted / w.width, roomW / w.width, roomH / w.height);
    width = clamp(Math.round(w.width * scale), roomW);
    height = clamp(Math.round(w.height * scale), roomH);
  } else {
    // The shadow adds its offset to each side: keep text and shadow inside the room.
    const size = Math.min(w.size * H, roomW / (w.widthPerPx + SHADOW_OFFSET), roomH / (w.heightPerPx + SHADOW_OFFSET));
    fontSize = Math.max(1, Math.floor(size));
    shadow = Math.max(1, Math.round(fontSize * SHADOW_OFFSET));
    width = clamp(Math.round(fontSize * w.widthPerPx) + shadow, roomW);
    height = clamp(Math.round(fontSize * w.heightPerPx) + shadow, roomH);
  }
  const [vertical, horizontal] = sides(w.position);
  const left = horizontal === "left" ? margin : horizontal === "right" ? W - width - margin : Math.round((W - width) / 2);
  const top = vertical === "top" ? margin : vertical === "bottom" ? H - height - margin : Math.round((H - height) / 2);
  return { left, top, width, height, margin, ...(fontSize === undefined ? {} : { fontSize, shadow }) };
}

const clamp = (n: number, max: number) => Math.max(1, Math.min(n, max));

function sides(position: WatermarkPosition): ["top" | "middle" | "bottom", "left" | "middle" | "right"] {
  const vertical = position.startsWith("top") ? "top" : position.startsWith("bottom") ? "bottom" : "middle";
  const horizontal = position.endsWith("left") ? "left" : position.endsWith("right") ? "right" : "middle";
  return [vertical, horizontal];
}

/**
 * The watermark as one of sharp's composite layers for a picture of `frame`'s size: the
 * image scaled, or the text drawn with its shadow, its alpha multiplied by the opacity,
 * bordered by the margin in transparent pixels and placed by gravity. (sharp composites
 * after resizing; placed by gravity, the layer sits at its corner or side of the picture
 * sharp made, also where that is a pixel larger than `frame`.)
 */
export async function sharpOverlay(w: PreparedWatermark, frame: { width: number; height: number }): Promise<OverlayOptions> {
  const box = overlayBox(w, frame);
  const m = box.margin;
  let layer: { data: Buffer; width: number; height: number };
  if (w.kind === "image") {
    layer = { data: await sharp(w.path).resize(box.width, box.height, { fit: "fill" }).raw().toBuffer(), width: box.width, height: box.height };
  } else {
    layer = await textLayer(w, box.fontSize!, box.shadow!);
    // Drawn at a given size, text may come out a few pixels wider than measured (hinting):
    // then it is scaled into the room inside the margins.
    const room = { width: frame.width - 2 * m, height: frame.height - 2 * m };
    if (layer.width > room.width || layer.height > room.height) {
      const { data, info } = await sharp(layer.data, { raw: { width: layer.width, height: layer.height, channels: 4 } })
        .resize({ ...room, fit: "inside" })
        .raw()
        .toBuffer({ resolveWithObject: true });
      layer = { data, width: info.width, height: info.height };
    }
  }
  // Opacity: the alpha channel scaled, the colours kept; then the margin around it.
  const input = await sharp(layer.data, { raw: { width: layer.width, height: layer.height, channels: 4 } })
    .linear([1, 1, 1, w.opacity], [0, 0, 0, 0])
    .extend({ top: m, bottom: m, left: m, right: m, background: TRANSPARENT })
    .raw()
    .toBuffer();
  return { input, raw: { width: layer.width + 2 * m, height: layer.height + 2 * m, channels: 4 }, gravity: GRAVITY[w.position] };
}

/**
 * `image` with the watermark laid over it. The layer's alpha is for blending only: a picture
 * that had none (an opaque photo, a video frame, padding in an opaque colour) comes out
 * without one, so the encoder writes what it would have written without the watermark (RGB,
 * not RGBA; a JPEG asked to become a PNG is an RGB PNG).
 */
export function withWatermark(image: Sharp, overlay: OverlayOptions, pictureHasAlpha: boolean): Sharp {
  const laid = image.composite([overlay]);
  return pictureHasAlpha ? laid : laid.removeAlpha();
}

/** The text in white over its shadow (black, offset by `shadow` px), as raw RGBA of the size they take. */
async function textLayer(w: Extract<PreparedWatermark, { kind: "text" }>, fontSize: number, shadow: number) {
  const text = await renderText(w, fontSize, "white");
  const shade = await renderText(w, fontSize, "black");
  const width = text.info.width + shadow;
  const height = text.info.height + shadow;
  const data = await sharp({ create: { width, height, channels: 4, background: TRANSPARENT } })
    .composite([
      { input: await sharp(shade.data).linear([1, 1, 1, SHADOW_ALPHA], [0, 0, 0, 0]).png().toBuffer(), left: shadow, top: shadow },
      { input: text.data, left: 0, top: 0 },
    ])
    .raw()
    .toBuffer();
  return { data, width, height };
}

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

const GRAVITY: Record<WatermarkPosition, string> = {
  "top-left": "northwest",
  top: "north",
  "top-right": "northeast",
  left: "west",
  center: "centre",
  right: "east",
  "bottom-left": "southwest",
  bottom: "south",
  "bottom-right": "southeast",
};

/**
 * The watermark as a piece of ffmpeg filter graph for video of `frame`'s size: `inputs` go
 * on the command line after the inputs already there (the first of them is input number
 * `inputIndex`: 1 after the one media input), and `filter(in, out)` takes the labelled
 * stream `[in]` (the picture at `frame`'s size, after any scaling) to `[out]`. An image
 * is scaled and its alpha multiplied by the opacity (colorchannelmixer), then overlaid
 * (a still input repeats its one frame, overlay's default); text is drawtext.
 */
export function ffmpegOverlay(
  w: PreparedWatermark,
  frame: { width: number; height: number },
  inputIndex = 1,
): { inputs: string[]; filter: (inLabel: string, outLabel: string) => string } {
  const box = overlayBox(w, frame);
  if (w.kind === "image") {
    const label = `wm${inputIndex}`;
    return {
      inputs: ["-i", w.path],
      filter: (inLabel, outLabel) =>
        `[${inputIndex}:v]format=rgba,scale=${box.width}:${box.height}:flags=lanczos,colorchannelmixer=aa=${round3(w.opacity)}[${label}];` +
        `[${inLabel}][${label}]overlay=x=${box.left}:y=${box.top}:format=auto[${outLabel}]`,
    };
  }
  const s = box.shadow!;
  const at = placeText(w.position, box);
  const options = [
    `fontfile=${quoteOption(w.fontFile)}`,
    `text=${quoteOption(w.text)}`,
    // No %{…} expansion: the text is drawn as given.
    "expansion=none",
    `fontsize=${box.fontSize}`,
    `fontcolor=white@${round3(w.opacity)}`,
    `shadowcolor=black@${round3(w.opacity * SHADOW_ALPHA)}`,
    `shadowx=${s}`,
    `shadowy=${s}`,
    `x=${at.x}`,
    `y=${at.y}`,
  ];
  return { inputs: [], filter: (inLabel, outLabel) => `[${inLabel}]drawtext=${escapeGraph(options.join(":"))}[${outLabel}]` };
}

/** drawtext's x and y: its own measure of the text (text_w, text_h) against the frame's edges, the shadow kept inside the margin. */
function placeText(position: WatermarkPosition, box: Box): { x: string; y: string } {
  const [vertical, horizontal] = sides(position);
  const s = box.shadow!;
  const x = horizontal === "left" ? String(box.margin) : horizontal === "right" ? `w-text_w-${s + box.margin}` : `(w-text_w-${s})/2`;
  const y = vertical === "top" ? String(box.margin) : vertical === "bottom" ? `h-text_h-${s + box.margin}` : `(h-text_h-${s})/2`;
  return { x, y };
}

/**
 * A value for one option of a filter (ffmpeg-filters "Notes on filtergraph escaping", first
 * level): quoted, so `:`, `=`, `\` and spaces are its own; a `'` closes the quote, is
 * written escaped, and the quote reopens.
 */
export function quoteOption(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/** A filter's option string inside a graph (second level): `\`, `'`, `[`, `]`, `,` and `;` escaped, so the graph's parser hands the options on unchanged. */
export function escapeGraph(options: string): string {
  return options.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

// `fit`, `position` and `background` (src/contract/common.ts) in sharp's terms, for
// compressImage and the frame grabs (frames.ts).
import sharp, { type ResizeOptions } from "sharp";
import type { Position } from "../../../src/contract/common.ts";

const GRAVITY: Record<Exclude<Position, "attention" | "entropy">, number> = {
  center: sharp.gravity.centre,
  top: sharp.gravity.north,
  right: sharp.gravity.east,
  bottom: sharp.gravity.south,
  left: sharp.gravity.west,
  "top-left": sharp.gravity.northwest,
  "top-right": sharp.gravity.northeast,
  "bottom-left": sharp.gravity.southwest,
  "bottom-right": sharp.gravity.southeast,
};

/** sharp's position: a gravity, or for attention/entropy its smart-crop strategy. */
export function sharpPosition(position: Position): number {
  if (position === "attention") return sharp.strategy.attention;
  if (position === "entropy") return sharp.strategy.entropy;
  return GRAVITY[position];
}

/** The padding of `contain`: the colour asked for, else transparent where the format keeps alpha, white where it cannot (JPEG). */
export function padColour(background: string | undefined, formatHasAlpha: boolean): ResizeOptions["background"] {
  if (background) return background;
  return formatHasAlpha ? { r: 0, g: 0, b: 0, alpha: 0 } : "#ffffff";
}

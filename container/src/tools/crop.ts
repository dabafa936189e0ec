// `fit`, `position` and `background` (src/contract/common.ts) in sharp's terms, for
// compressImage and the frame grabs (frames.ts).
import type { ResizeOptions } from "sharp";
import type { Position } from "../../../src/contract/common.ts";

const GRAVITY: Record<Exclude<Position, "attention" | "entropy">, string> = {
  center: "centre",
  top: "north",
  right: "east",
  bottom: "south",
  left: "west",
  "top-left": "northwest",
  "top-right": "northeast",
  "bottom-left": "southwest",
  "bottom-right": "southeast",
};

/** sharp's position: a gravity, or for attention/entropy its smart-crop strategy (sharp takes their names). */
export function sharpPosition(position: Position): string {
  if (position === "attention" || position === "entropy") return position;
  return GRAVITY[position];
}

/** The padding of `contain`: the colour asked for, else transparent where the format keeps alpha, white where it cannot (JPEG). */
export function padColour(background: string | undefined, formatHasAlpha: boolean): ResizeOptions["background"] {
  if (background) return background;
  return formatHasAlpha ? { r: 0, g: 0, b: 0, alpha: 0 } : "#ffffff";
}

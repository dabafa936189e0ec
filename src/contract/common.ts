// Building blocks shared by the job-type schemas: what a job type defines, URLs, presets,
// dimensions. Every bound here is part of the public contract (docs/job-types.md).
import { z } from "zod";
import { UPLOAD_REF, type UPLOADABLE_CONTENT_TYPES } from "./uploads.ts";

/**
 * A job type: its schema file in jobs/ exports one, and registry.ts lists it. Everything
 * else about the type (its HTTP name, the OpenAPI document, the client's types) is derived
 * from these (docs/architecture.md, "Adding a job type").
 */
export interface JobTypeDefinition<Name extends string = string> {
  /** The canonical (client-library) name, such as `compressImage`, and the schema file's name kebab-cased; the HTTP name is the same kebab-cased (names.gen.ts). */
  readonly name: Name;
  readonly params: z.ZodType;
  readonly result: z.ZodType;
  /** The media types an uploaded input (`upload:upl_…`) may declare for this type (`UPLOAD_MEDIA` in uploads.ts). */
  readonly uploadContentTypes: readonly (typeof UPLOADABLE_CONTENT_TYPES)[number][];
}

/** An http(s) URL. Address rules (SSRF) are applied by the server, not here. */
export const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http or https URL" })
  .max(2048);

/** The media to process: an http(s) URL, or `upload:upl_…` for one of your uploads (contract/uploads.ts). */
export const mediaUrl = z.union([httpUrl, z.string().regex(UPLOAD_REF)], {
  error: "must be an http or https URL, or upload:<upload id> (upload:upl_…)",
});

export const qualityPreset = z.enum(["low", "medium", "high"]);
export type QualityPreset = z.infer<typeof qualityPreset>;

/** 1–100, as in every image encoder's quality scale. */
export const imageQuality = z.int().min(1).max(100);

/** Output dimensions in pixels. 16384 is the largest side any of our encoders accepts. */
export const dimension = z.int().min(1).max(16384);

export const imageFormat = z.enum(["jpg", "png", "webp"]);

/** Where a signed download link goes in a result, with the moment it stops working. */
export const signedFile = {
  url: z.string(),
  expiresAt: z.string(),
  size: z.int(),
};

/** How a picture meets a box of both width and height (sharp's `fit`, Cloudinary's crop modes). */
export const fit = z.enum(["cover", "contain", "inside", "fill"]);
export type Fit = z.infer<typeof fit>;

/**
 * Which part of the picture a `cover` crop keeps (or where `contain` places it in the box):
 * a side or corner, or `attention` (the most salient region: skin, saturation, edges) or
 * `entropy` (the most detailed), sharp's smart-crop strategies; those two crop, so only `cover`.
 */
export const position = z.enum([
  "center", "top", "right", "bottom", "left", "top-left", "top-right", "bottom-left", "bottom-right", "attention", "entropy",
]);

export type Position = z.infer<typeof position>;

/** A padding colour, `#rrggbb`. */
export const background = z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a colour as #rrggbb");

/** A frame's (videoThumbnail, videoExtraction) `fit`, `position` and `background`. */
export const frameFit = fit
  .optional()
  .describe("How the frame meets the box of both `width` and `height`: `cover` (the default) fills it and crops the overflow, `contain` fits in it and pads, `fill` stretches to it, `inside` fits in it (the frame may come out smaller than the box). Frames scale up as well as down.");
export const framePosition = position
  .optional()
  .describe("What a `cover` crop keeps (a side, a corner, or `attention`/`entropy`: the most salient or most detailed region), or where `contain` places the frame. Default: `center`.");
export const frameBackground = background
  .optional()
  .describe("Colour of `contain`'s padding. Default: transparent in PNG and WebP, white in JPEG.");

interface Shape {
  width?: number;
  height?: number;
  fit?: Fit;
  position?: Position;
  background?: string;
}

/**
 * The rules between size, `fit`, `position` and `background`, as issues at `path` + field:
 * absent, `fit` is `defaultFit` and `position` is `center` (optional rather than defaulted, so a
 * job that does not use them is stored and sent to processors exactly as before they existed);
 * a fit other than `defaultFit` and a position other than `center` need both sides; a
 * position places only with cover or contain, and attention/entropy only with cover;
 * `background` pads, so only with contain. `names` are the size fields' names.
 */
export function checkShape(
  shape: Shape,
  ctx: z.RefinementCtx,
  options: { defaultFit: Shape["fit"]; names: [string, string]; path?: (string | number)[] },
): void {
  const path = options.path ?? [];
  const { fit = options.defaultFit, position = "center" } = shape;
  const both = shape.width !== undefined && shape.height !== undefined;
  const sides = `both ${options.names[0]} and ${options.names[1]}`;
  if (fit !== options.defaultFit && !both) {
    ctx.addIssue({ code: "custom", path: [...path, "fit"], message: `fit "${fit}" needs ${sides}` });
  }
  if (position !== "center") {
    if (!both) {
      ctx.addIssue({ code: "custom", path: [...path, "position"], message: `position "${position}" needs ${sides}` });
    } else if ((position === "attention" || position === "entropy") && fit !== "cover") {
      ctx.addIssue({ code: "custom", path: [...path, "position"], message: `position "${position}" chooses a crop, so it needs fit "cover"` });
    } else if (fit !== "cover" && fit !== "contain") {
      ctx.addIssue({ code: "custom", path: [...path, "position"], message: `position places the picture only with fit "cover" or "contain"; fit "${fit}" has nothing to place` });
    }
  }
  if (shape.background !== undefined && fit !== "contain") {
    ctx.addIssue({ code: "custom", path: [...path, "background"], message: `background fills the padding of fit "contain" only` });
  }
}

/** Where a watermark sits: a side, a corner or the centre of the output. */
export const watermarkPosition = z.enum([
  "top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right",
]);
export type WatermarkPosition = z.infer<typeof watermarkPosition>;

/** Longest watermark text, in characters (a line: a name, a copyright, a URL). */
export const WATERMARK_TEXT_MAX = 200;

/**
 * An overlay on the output: an image by URL (fetched with the input's address rules, its own
 * size limit) or a line of text, placed at `position`, `margin` from the edges it is near.
 * One object with `text` xor `url` (not a union), so every problem is reported at its field.
 */
export const watermark = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .max(WATERMARK_TEXT_MAX)
      // C0, DEL and C1 controls and the Unicode line breaks: one line of visible text.
      .regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/, "must be one line of text without control characters")
      .regex(/\S/, "must have a visible character")
      .optional()
      .describe(`A line of text (at most ${WATERMARK_TEXT_MAX} characters), drawn in white with a dark shadow. Give \`text\` or \`url\`.`),
    url: httpUrl
      .optional()
      .describe("A PNG, JPEG, WebP or AVIF image (at most 10 MiB), such as a logo with transparency. Give `text` or `url`."),
    position: watermarkPosition.default("bottom-right").describe("Where the overlay sits. Default: `bottom-right`."),
    margin: z
      .number()
      .min(0)
      .max(0.25)
      .default(0.02)
      .describe("Distance from the edges the overlay is near, as a fraction of the output's shorter side. Default: 0.02."),
    opacity: z.number().min(0).max(1).default(1).describe("0 (invisible) to 1 (opaque). Default: 1."),
    size: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("An image's width, or the text's height, as a fraction of the output's width or height. Default: 0.15 for an image, 0.05 for text. The overlay is made smaller when it would not fit inside the margins."),
  })
  .superRefine((w, ctx) => {
    if ((w.text === undefined) === (w.url === undefined)) {
      ctx.addIssue({ code: "custom", path: w.text === undefined ? [] : ["url"], message: w.text === undefined ? "give text or url" : "give text or url, not both" });
    }
  })
  .describe("An image or a line of text laid over the output (docs/job-types.md, Watermarks).");
export type Watermark = z.output<typeof watermark>;

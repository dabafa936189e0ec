// The image tool: sharp (libvips) in a process of its own, started by tools/image-process.ts
// under the attempt's uid and rlimits, as every other tool is (isolation.ts). libvips parses
// what users send; here a fault in it reaches only what the attempt's own uid may reach.
//
// Bytes decide the type: every libvips loader is blocked but those of the formats the service
// accepts, so an SVG (which may name other files), a PDF, a PPM, a FITS or a file only
// ImageMagick would read is refused by content, whatever its name or the type it came with.
//
// It answers requests over the IPC channel (structured clone: Buffers cross as they are):
// { id, input, options, calls: [method, args][], end: [method, args] } runs
// `sharp(input, options).method(...args)…` and answers { id, value } or { id, error }.
// Only the processor, its parent, speaks to it.
import sharp from "sharp";

/** The libvips loaders of the accepted formats: JPEG, PNG, WebP, HEIF and AVIF, GIF, TIFF. */
export const ACCEPTED_LOADERS = [
  "VipsForeignLoadJpeg",
  "VipsForeignLoadPng",
  "VipsForeignLoadSpng",
  "VipsForeignLoadWebp",
  "VipsForeignLoadHeif",
  "VipsForeignLoadNsgif",
  "VipsForeignLoadGif",
  "VipsForeignLoadTiff",
];

sharp.block({ operation: ["VipsForeignLoad"] });
sharp.unblock({ operation: ACCEPTED_LOADERS });

interface Request {
  id: number;
  input: unknown[];
  calls: [string, unknown[]][];
  end: [string, unknown[]];
}

type Chain = Record<string, (...args: unknown[]) => unknown>;

async function answer(request: Request): Promise<unknown> {
  let image = (sharp as unknown as (...args: unknown[]) => Chain)(...request.input);
  for (const [method, args] of request.calls) image = image[method]!(...args) as Chain;
  const [method, args] = request.end;
  return image[method]!(...args);
}

// libvips's first decodes and encodes load their codecs, and V8 compiles sharp's code on its
// first calls: a ready tool (`--warm`) does so while it waits for its attempt (a frame's first
// encode took 20-80 ms in a tool that had only encoded, 5-10 ms once warm).
async function warm(): Promise<void> {
  const blank = sharp({ create: { width: 64, height: 48, channels: 3, background: "white" } });
  const encoded = await Promise.all([blank.clone().jpeg().toBuffer(), blank.clone().png().toBuffer(), blank.clone().webp().toBuffer()]);
  for (const bytes of encoded) {
    await sharp(bytes).metadata();
    await sharp(bytes).resize({ width: 32, height: 32, fit: "cover" }).jpeg({ quality: 80 }).toBuffer();
  }
}

// One request at a time, the warm-up first: libvips keeps one error buffer for the process and
// clears it as it goes (a loader's probe does), so an operation running beside a failing one
// could wipe its message, and the failure would reach the user as sharp's "Unknown error"
// instead of what is wrong with the file (seen under load: a truncated JPEG). The attempt's
// tool works for one attempt, on one seat's share of CPU; libvips still uses its threads within
// each operation.
let turn: Promise<unknown> = process.argv.includes("--warm") ? warm().then(() => process.send!({ warmed: true }), () => undefined) : Promise.resolve();

process.on("message", (request: Request) => {
  turn = turn.then(() =>
    answer(request).then(
      (value) => process.send!({ id: request.id, value }),
      (error: unknown) => process.send!({ id: request.id, error: String((error as Error)?.message ?? error) }),
    ),
  );
});
process.on("disconnect", () => process.exit(0));

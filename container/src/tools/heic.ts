// HEIC, the HEVC-coded HEIF that phones write. sharp's prebuilt libvips reads HEIF
// headers but decodes only AVIF-coded HEIF: it has no HEVC decoder (patents). libheif's
// heif-convert (Debian: libheif-examples, with libde265) decodes them, into a lossless PNG
// that sharp then reads like any other input.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "../errors.ts";
import { endedEarly, runTool } from "./spawn.ts";

const HEIF_CONVERT = "heif-convert";
const DECODE_TIMEOUT_MS = 120_000;

/**
 * Decodes the primary image of an HEVC-coded HEIF into `dir`/decoded.png, with its
 * rotation and mirroring (`irot`, `imir`) applied; returns the PNG's path. The PNG carries
 * the input's EXIF, whose Orientation tag must then be ignored: the HEIF transforms are
 * the orientation (ISO/IEC 23008-12 §6.5.10), as every HEIF reader, libvips included, does.
 */
export async function decodeHeic(input: string, dir: string, signal: AbortSignal): Promise<string> {
  const target = join(dir, "decoded.png");
  let run;
  try {
    run = await runTool(HEIF_CONVERT, ["--quiet", input, target], { signal, timeoutMs: DECODE_TIMEOUT_MS });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new JobFailure("unsupported_media", "HEIC (HEVC-coded HEIF) photos cannot be decoded on this processor; send JPEG, PNG, WebP or AVIF", { cause: error });
    }
    throw error;
  }
  const early = endedEarly(run, signal, `decoding the HEIC photo took longer than ${DECODE_TIMEOUT_MS / 1000} s`);
  if (early) throw early;
  if (run.code !== 0) {
    const log = run.stderr.trim().split("\n").pop() ?? "";
    if (/unsupported|not supported|no decoder|plugin/i.test(run.stderr)) {
      throw new JobFailure("unsupported_media", "the HEIF image uses a coding this processor cannot decode; HEVC (HEIC) and AV1 (AVIF) are supported", { cause: new Error(log) });
    }
    throw new JobFailure("corrupt_media", "the HEIC photo is damaged or truncated and cannot be decoded", { cause: new Error(log) });
  }
  // A file with several top-level images (a burst) gives decoded-1.png, decoded-2.png, …: the first is the primary.
  for (const path of [target, join(dir, "decoded-1.png")]) {
    if (await access(path).then(() => true, () => false)) return path;
  }
  throw new JobFailure("corrupt_media", "the HEIC file holds no image that can be decoded");
}

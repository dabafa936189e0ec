// Versions of the external tools, for /status and the dev script's checks.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import sharp from "sharp";

const exec = promisify(execFile);

async function firstLine(command: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await exec(command, args, { timeout: 5000 });
    return stdout.split("\n")[0]?.trim() || null;
  } catch {
    return null;
  }
}

let cached: Promise<Record<string, string | null>> | undefined;

export function toolVersions(): Promise<Record<string, string | null>> {
  cached ??= (async () => ({
    node: process.version,
    sharp: sharp.versions.sharp ?? null,
    vips: sharp.versions.vips,
    ffmpeg: (await firstLine("ffmpeg", ["-version"]))?.replace(/^ffmpeg version (\S+).*/, "$1") ?? null,
    ffprobe: (await firstLine("ffprobe", ["-version"]))?.replace(/^ffprobe version (\S+).*/, "$1") ?? null,
    ghostscript: await firstLine("gs", ["--version"]),
    qpdf: (await firstLine("qpdf", ["--version"]))?.replace(/^qpdf version /, "") ?? null,
    // The HEVC decoder HEIC photos need; null when heif-convert or libde265 is missing.
    libde265: (await exec("heif-convert", ["--list-decoders"], { timeout: 5000 }).then(({ stdout }) => /libde265 HEVC decoder, version (\S+)/.exec(stdout)?.[1], () => undefined)) ?? null,
  }))();
  return cached;
}

// compressPdf with Ghostscript's pdfwrite: images downsampled and recompressed per
// quality preset, fonts subset and compressed, objects rewritten compactly; document
// metadata removed on request (qpdf). Never returns a file larger than the input: the
// smallest acceptable file wins, the input itself (rewritten without metadata if asked)
// among them.
import { copyFile, open, rename, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { GS_BASE_ARGS, ghostscriptFailure, runGhostscript } from "../tools/ghostscript.ts";
import { writeWithoutMetadata } from "../tools/qpdf.ts";
import type { ProcessorContext } from "./types.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { ratio } from "./compress-image.ts";

type Params = JobParams<"compressPdf">;

/** Ghostscript's distiller presets: /screen 72 dpi, /ebook 150 dpi, /printer 300 dpi images. */
export const PDF_SETTINGS: Record<Params["quality"], string> = {
  low: "/screen",
  medium: "/ebook",
  high: "/printer",
};

/** The pdfwrite argument list. Pure; paths must be absolute (a leading `-` would be a switch). */
export function buildArgs(params: Pick<Params, "quality" | "removeMetadata">, paths: { input: string; output: string }): string[] {
  if (!isAbsolute(paths.input) || !isAbsolute(paths.output)) throw new Error("Ghostscript paths must be absolute");
  return [
    ...GS_BASE_ARGS,
    "-sDEVICE=pdfwrite",
    `-dPDFSETTINGS=${PDF_SETTINGS[params.quality]}`,
    "-dCompatibilityLevel=1.5",
    // Keep pages as they are: pdfwrite would otherwise rotate pages by their text direction.
    "-dAutoRotatePages=/None",
    "-dDetectDuplicateImages=true",
    // Re-encode JPEGs too, at the preset's quality: passed through, they would not shrink.
    "-dPassThroughJPEGImages=false",
    "-dSubsetFonts=true",
    "-dCompressFonts=true",
    "-dCompressPages=true",
    // The rest of the metadata (the Info Ghostscript writes) is removed by qpdf afterwards.
    ...(params.removeMetadata ? ["-dOmitXMP=true", "-dOmitInfoDate=true"] : []),
    // `%` in an output name is a page-number template for Ghostscript.
    `-sOutputFile=${paths.output.replaceAll("%", "%%")}`,
    paths.input,
  ];
}

export async function compressPdf(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressPdf">> {
  const { input, signal, config } = ctx;
  await identifyPdf(input.path);
  const gs = { signal, timeoutMs: config.JOB_TIMEOUT_MS };
  ctx.setProgress(10);

  const compressed = join(ctx.workDir, "compressed.pdf");
  const run = await runGhostscript(buildArgs(params, { input: input.path, output: compressed }), {
    ...gs,
    onPage: (page, of) => ctx.setProgress(10 + (70 * page) / Math.max(page, of)),
  });
  const failure = ghostscriptFailure(run);
  if (failure) throw failure;
  // The page counts come from this run's own words: the document's count before its first
  // page, then a line per page written. Ghostscript's repair of a damaged file is in both.
  const sourcePages = run.pages;
  const pages = run.processed;
  if (sourcePages === 0) throw new JobFailure("corrupt_media", "the PDF is damaged or has no pages", { cause: run.stdout.trim().slice(-2000) });
  if (pages < sourcePages) {
    throw new JobFailure("corrupt_media", `the PDF is damaged: only ${pages} of its ${sourcePages} pages could be read`);
  }
  ctx.setProgress(80);
  throwIfAborted(signal);

  // Every acceptable answer, and the smallest wins: the output is never larger than the input.
  const candidates: Candidate[] = [];
  if (!params.removeMetadata) {
    candidates.push({ path: compressed, pages, original: false }, { path: input.path, pages: sourcePages, original: true });
  } else {
    const stripped = join(ctx.workDir, "compressed-stripped.pdf");
    if (await writeWithoutMetadata(compressed, stripped, join(ctx.workDir, "compressed-patch.json"), gs)) candidates.push({ path: stripped, pages, original: false });
    else candidates.push({ path: compressed, pages, original: false });
    // The input itself without its metadata: lossless, and the answer when Ghostscript cannot beat it.
    const scrubbed = join(ctx.workDir, "input-stripped.pdf");
    const inputCandidate = await writeWithoutMetadata(input.path, scrubbed, join(ctx.workDir, "input-patch.json"), gs).then(
      (changed) => (changed ? { path: scrubbed, pages: sourcePages, original: false } : { path: input.path, pages: sourcePages, original: true }),
      // qpdf cannot read a file Ghostscript repaired: the compressed candidate stands alone.
      (error: unknown) => (error instanceof JobFailure && error.code === "corrupt_media" ? undefined : Promise.reject(error)),
    );
    if (inputCandidate) candidates.push(inputCandidate);
  }
  for (const candidate of candidates) candidate.size = (await stat(candidate.path)).size;
  // Smallest first; on a tie the input's own bytes.
  const best = candidates.sort((a, b) => a.size! - b.size! || Number(b.original) - Number(a.original))[0]!;
  if (best.size! > input.size) {
    throw new JobFailure("processing_failed", "removing the metadata would make this PDF larger than it is, and the output is never larger than the input; send it with removeMetadata false");
  }
  ctx.setProgress(95);
  throwIfAborted(signal);

  const name = "document.pdf";
  const output = ctx.addOutput(name, "application/pdf");
  await (best.original ? copyFile(input.path, output) : rename(best.path, output));
  return {
    url: name,
    size: best.size!,
    format: "pdf",
    compressionRatio: best.original ? 1 : ratio(best.size!, input.size),
    pages: best.pages,
    keptOriginal: best.original,
    source: { size: input.size, pages: sourcePages },
  };
}

interface Candidate {
  path: string;
  pages: number;
  /** The input's own bytes. */
  original: boolean;
  size?: number;
}

/** A PDF by its bytes: `%PDF-` within the first 1024 bytes (as readers accept), never by name or Content-Type. */
export async function identifyPdf(path: string): Promise<void> {
  const file = await open(path, "r");
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(1024);
    const { bytesRead } = await file.read(buffer, 0, 1024, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  if (head.includes("%PDF-", 0, "latin1")) return;
  if (head.length === 0) throw new JobFailure("unsupported_media", "the input is empty (0 bytes)");
  const text = head.toString("latin1");
  if (/^\s*<(!doctype html|html|head|body)/i.test(text)) {
    throw new JobFailure("unsupported_media", "the input is an HTML page, not a PDF; check that the URL points at the file itself");
  }
  throw new JobFailure("unsupported_media", "the input is not a PDF (it does not start with %PDF-)");
}

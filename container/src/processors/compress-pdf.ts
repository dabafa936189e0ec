// compressPdf with Ghostscript's pdfwrite: images downsampled and recompressed per
// quality preset, fonts subset and compressed, objects rewritten compactly; document
// metadata removed on request. Never returns a file larger than the input: the input
// itself (scrubbed of metadata if asked) is returned instead.
import { copyFile, open, rename, rm, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { GS_BASE_ARGS, ghostscriptFailure, pdfPageCount, runGhostscript } from "../tools/ghostscript.ts";
import { scrubPdfMetadata } from "../tools/pdf-metadata.ts";
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
    // Ghostscript 10.02+ can put objects in compressed object streams; the metadata
    // scrub edits plain objects in place, so keep them plain when it has to run.
    ...(params.removeMetadata ? ["-dOmitXMP=true", "-dOmitInfoDate=true", "-dWriteObjStms=false", "-dWriteXRefStm=false"] : []),
    // `%` in an output name is a page-number template for Ghostscript.
    `-sOutputFile=${paths.output.replaceAll("%", "%%")}`,
    paths.input,
  ];
}

export async function compressPdf(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressPdf">> {
  const { input, signal, config } = ctx;
  await identifyPdf(input.path);
  const gs = { signal, timeoutMs: config.JOB_TIMEOUT_MS };
  const sourcePages = await pdfPageCount(input.path, gs);
  ctx.setProgress(10);

  const compressed = join(ctx.workDir, "compressed.pdf");
  const result = await runGhostscript(buildArgs(params, { input: input.path, output: compressed }), {
    ...gs,
    onPage: (page) => ctx.setProgress(10 + (75 * page) / sourcePages),
  });
  const failure = ghostscriptFailure(result);
  if (failure) throw failure;
  const pages = await pdfPageCount(compressed, gs);
  if (pages < sourcePages) {
    throw new JobFailure("corrupt_media", `the PDF is damaged: only ${pages} of its ${sourcePages} pages could be read`);
  }
  if (params.removeMetadata) await scrubOrFail(compressed, "the compressed PDF");
  ctx.setProgress(90);
  throwIfAborted(signal);

  const name = "document.pdf";
  const output = ctx.addOutput(name, "application/pdf");
  let size = (await stat(compressed)).size;
  let keptOriginal = false;
  if (size >= input.size) {
    // Recompression did not help: hand back the input, without its metadata if asked.
    await copyFile(input.path, output);
    const scrubbed = params.removeMetadata ? (await scrubPdfMetadata(output)).complete : true;
    if (scrubbed) {
      keptOriginal = true;
      size = input.size;
    } else {
      // The input keeps metadata where it cannot be edited in place (object streams):
      // removing it was asked for, so the rewritten file wins even though it is larger.
      await rename(compressed, output);
    }
  } else {
    await rename(compressed, output);
  }
  await rm(compressed, { force: true });

  return {
    url: name,
    size,
    format: "pdf",
    compressionRatio: keptOriginal ? 1 : ratio(size, input.size),
    pages: keptOriginal ? sourcePages : pages,
    keptOriginal,
    source: { size: input.size, pages: sourcePages },
  };
}

async function scrubOrFail(path: string, what: string): Promise<void> {
  const { complete } = await scrubPdfMetadata(path);
  if (!complete) throw new JobFailure("processing_failed", `the metadata of ${what} could not be removed`);
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

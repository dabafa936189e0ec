// compressPdf with Ghostscript's pdfwrite: images downsampled and recompressed per
// quality preset, fonts subset and compressed, objects rewritten compactly; document
// metadata removed on request (qpdf). The smallest acceptable file wins, the input itself
// (rewritten losslessly without metadata if asked) among them.
import { copyFile, open, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import { claimFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { toolDirectory } from "../isolation.ts";
import { GS_BASE_ARGS, ghostscriptFailure, pdfOnlyArgs, runGhostscript } from "../tools/ghostscript.ts";
import { inspectPdf, writeMetadataPatch, writeWithPatch, type ObjectStreams } from "../tools/qpdf.ts";
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

/**
 * The pdfwrite argument list. Pure; paths must be absolute (a leading `-` would be a switch).
 * `withoutAnnotations` for a document with active content: Ghostscript keeps link
 * annotations with their actions, JavaScript included, so it drops every annotation then.
 */
export function buildArgs(
  params: Pick<Params, "quality" | "removeMetadata">,
  paths: { input: string; output: string },
  withoutAnnotations = false,
): string[] {
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
    ...(withoutAnnotations ? ["-dPreserveAnnots=false"] : []),
    ...pdfOnlyArgs(paths.input, paths.output),
  ];
}

export async function compressPdf(params: Params, ctx: ProcessorContext): Promise<StoredResult<"compressPdf">> {
  const { input, signal, config } = ctx;
  // Bytes decide, then qpdf proves it parses, before Ghostscript sees a byte of it.
  await identifyPdf(input.path);
  const tools = { signal, timeoutMs: config.JOB_TIMEOUT_MS };
  const { active } = await inspectPdf(input.path, tools);
  // A document that runs something when opened is never returned as it came (nor rewritten
  // losslessly): only Ghostscript's rewrite, which drops scripts, PostScript and actions.
  const scripted = active.length > 0;
  ctx.setProgress(10);

  const compressed = join(ctx.workDir, "compressed.pdf");
  const tempDir = join(ctx.workDir, "gs-tmp");
  await toolDirectory(tempDir);
  const run = await runGhostscript(buildArgs(params, { input: input.path, output: compressed }, scripted), {
    ...tools,
    tempDir,
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
  if (scripted && (await inspectPdf(compressed, tools)).active.length > 0) {
    throw new JobFailure("unsupported_media", `the PDF holds active content (${active.join(", ")}) that could not be removed; remove its scripts and actions and try again`);
  }
  ctx.setProgress(80);
  throwIfAborted(signal);

  // Every acceptable answer, and the smallest wins.
  const candidates: Candidate[] = [];
  if (scripted) {
    const [stripped = compressed] = params.removeMetadata ? await withoutMetadata(compressed, "compressed", ["generate"], ctx) : [];
    candidates.push({ path: stripped, pages, original: false });
  } else if (!params.removeMetadata) {
    candidates.push({ path: compressed, pages, original: false }, { path: input.path, pages: sourcePages, original: true });
  } else {
    const [stripped = compressed] = await withoutMetadata(compressed, "compressed", ["generate"], ctx);
    candidates.push({ path: stripped, pages, original: false });
    // The input itself without its metadata, losslessly: the answer when Ghostscript cannot
    // beat it. Its own grouping of objects into streams is kept as one candidate (qpdf's
    // regrouping, 100 objects to a stream, can cost more than the metadata weighed) and
    // regrouped as another (for a file that has no object streams).
    const inputPaths = await withoutMetadata(input.path, "input", ["preserve", "generate"], ctx).catch(
      // qpdf cannot read a file Ghostscript repaired: the compressed candidate stands alone.
      (error: unknown) => (error instanceof JobFailure && error.code === "corrupt_media" ? undefined : Promise.reject(error)),
    );
    if (inputPaths?.length === 0) candidates.push({ path: input.path, pages: sourcePages, original: true });
    for (const path of inputPaths ?? []) candidates.push({ path, pages: sourcePages, original: true });
  }
  for (const candidate of candidates) candidate.size = (await stat(candidate.path)).size;
  // Smallest first; on a tie the input's own bytes.
  const best = candidates.sort((a, b) => a.size! - b.size! || Number(b.path === input.path) - Number(a.path === input.path))[0]!;
  // Without removeMetadata the input itself is a candidate, so this never exceeds the input.
  // With it, a metadata-free file larger than the input wins only when none is smaller: a
  // file packed tighter than qpdf writes, by more than its metadata weighed. Removing the
  // metadata was asked for; refusing would not do it. A scripted document's rewrite is the
  // only candidate, whatever its size.
  ctx.setProgress(95);
  throwIfAborted(signal);

  const name = "document.pdf";
  const output = ctx.addOutput(name, "application/pdf");
  // A name in a directory the tools write in: claimed before it is written by name (attempt-files.ts); a rename replaces whatever is there.
  if (best.path === input.path) await claimFile(output);
  await (best.path === input.path ? copyFile(input.path, output) : rename(best.path, output));
  return {
    url: name,
    size: best.size!,
    format: "pdf",
    compressionRatio: best.path === input.path ? 1 : ratio(best.size!, input.size),
    pages: best.pages,
    keptOriginal: best.original,
    source: { size: input.size, pages: sourcePages },
  };
}

interface Candidate {
  path: string;
  pages: number;
  /** The input's own content: its bytes, or its objects rewritten losslessly without metadata. */
  original: boolean;
  size?: number;
}

/** `pdf` rewritten without its metadata, once per way of storing its objects; none when it has no metadata. */
async function withoutMetadata(pdf: string, name: string, ways: ObjectStreams[], ctx: ProcessorContext): Promise<string[]> {
  const options = { signal: ctx.signal, timeoutMs: ctx.config.JOB_TIMEOUT_MS };
  const patch = await writeMetadataPatch(pdf, join(ctx.workDir, `${name}-patch.json`), options);
  if (!patch) return [];
  const paths: string[] = [];
  for (const way of ways) {
    const path = join(ctx.workDir, `${name}-${way}.pdf`);
    await writeWithPatch(pdf, path, patch, way, options);
    paths.push(path);
  }
  return paths;
}

/** PDF white-space (ISO 32000-2, 7.2.3): NUL, HT, LF, FF, CR, SP. */
const PDF_WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** The DOS binary header of an EPS file with a preview (Adobe TN 5002): C5 D0 D3 C6. */
const EPS_BINARY = Buffer.from([0xc5, 0xd0, 0xd3, 0xc6]);
const CONVERT = "convert it to PDF first (for example with ps2pdf) and send the PDF";

/**
 * A PDF by its bytes, never by name or Content-Type: `%PDF-1.x` or `%PDF-2.x` at the start,
 * after at most a UTF-8 byte order mark and PDF white-space (the header is the file's first
 * line, ISO 32000-2 7.5.2; those are what text tools add). Readers that look further (Acrobat
 * and Ghostscript search the first KB) would accept a PostScript program with `%PDF-` in a
 * comment, which is what Ghostscript would then run: PostScript and EPS are refused by name.
 */
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
  if (head.length === 0) throw new JobFailure("unsupported_media", "the input is empty (0 bytes)");
  let start = head.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  while (start < head.length && PDF_WHITESPACE.has(head[start]!)) start++;
  const text = head.subarray(start).toString("latin1");
  if (/^%PDF-[12]\.\d/.test(text)) return;
  if (head.subarray(0, 4).equals(EPS_BINARY) || /^%!PS-Adobe-\d\.\d+ EPSF/.test(text)) {
    throw new JobFailure("unsupported_media", `the input is EPS (Encapsulated PostScript), not a PDF; the service does not run PostScript: ${CONVERT}`);
  }
  if (text.startsWith("%!")) {
    throw new JobFailure("unsupported_media", `the input is PostScript, not a PDF; the service does not run PostScript programs: ${CONVERT}`);
  }
  if (/^<(!doctype html|html|head|body)/i.test(text)) {
    throw new JobFailure("unsupported_media", "the input is an HTML page, not a PDF; check that the URL points at the file itself");
  }
  const at = head.indexOf("%PDF-", 0, "latin1");
  if (at > 0) {
    throw new JobFailure("unsupported_media", `the input is not a PDF: it has ${at} bytes of something else before its %PDF- header, and a PDF starts with its header; send the PDF file itself`);
  }
  throw new JobFailure("unsupported_media", "the input is not a PDF (it does not start with %PDF-1.x or %PDF-2.x)");
}

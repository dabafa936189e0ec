// Removing a PDF's document metadata with qpdf (https://qpdf.readthedocs.io): it reads
// any PDF (object streams, broken cross-references it can repair, owner-password
// encryption), and rewrites it whole, so nothing removed lingers in an old revision.
// The Info dictionary (trailer /Info), the XMP stream (catalog /Metadata) and the document
// ID are dropped through qpdf's JSON update; objects no longer referenced are not written.
import { writeFile } from "node:fs/promises";
import { claimFile } from "../attempt-files.ts";
import { JobFailure } from "../errors.ts";
import { endedEarly, runTool, type RunOptions } from "./spawn.ts";

const QPDF = "qpdf";

export interface QpdfOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

/** qpdf's exit codes: 0 success, 3 success with warnings (a repaired file), 2 errors. */
async function qpdf(args: string[], options: QpdfOptions, more: Pick<RunOptions, "maxBuffer" | "onStdout"> = {}): Promise<string> {
  let run;
  try {
    run = await runTool(QPDF, args, { ...options, ...more });
  } catch (error) {
    if (error instanceof JobFailure) throw error;
    throw new JobFailure("processing_failed", "qpdf is not available on this processor", { cause: error });
  }
  const early = endedEarly(run, options.signal, `qpdf did not finish within ${Math.round(options.timeoutMs / 1000)} s`);
  if (early) throw early;
  if (run.code !== 0 && run.code !== 3) {
    const said = run.stderr.trim().slice(-2000);
    if (/invalid password/i.test(said)) throw new JobFailure("encrypted_media", "the PDF is password-protected; remove the password (or send an unprotected copy) and try again", { cause: said });
    throw new JobFailure("corrupt_media", "the PDF could not be read; it is damaged or not a valid PDF", { cause: said });
  }
  return run.stdout;
}

/**
 * Names that make a PDF do something when opened or clicked, rather than show something:
 * scripts, launching programs, submitting or importing form data, rich media, and
 * PostScript (a `/Subtype /PS` or `/Subtype2 /PS` XObject). Matched as qpdf's JSON v2 writes a
 * name (`"/JS"`); a string holding that text is written `"u:/JS"` and does not match.
 */
const ACTIVE_NAMES = /"\/(JavaScript|JS|Launch|SubmitForm|ImportData|RichMedia|PS)"/g;

export interface PdfInspection {
  /** The active-content names found in the file's dictionaries, each once (empty for none). */
  active: string[];
}

/**
 * Proves that `path` parses as a PDF, before any other tool reads it: qpdf reads the
 * cross-reference table (reconstructing it if damaged: exit code 3), the trailer, the page
 * tree and every object's dictionary (stream data is not decoded), and fails corrupt_media
 * (or encrypted_media) when it cannot. Its JSON is scanned as it streams for active content,
 * so a file of any number of objects costs no memory here.
 */
export async function inspectPdf(path: string, options: QpdfOptions): Promise<PdfInspection> {
  const active = new Set<string>();
  let carry = "";
  await qpdf(["--json=2", "--json-key=pages", "--json-key=qpdf", "--json-stream-data=none", path], options, {
    maxBuffer: 64 * 1024,
    onStdout: (chunk) => {
      const text = carry + chunk;
      for (const match of text.matchAll(ACTIVE_NAMES)) active.add(match[1]!);
      // A name split between two chunks is found in the next one.
      carry = text.slice(-16);
    },
  });
  return { active: [...active].sort() };
}

/** One object of the file as qpdf's JSON v2 shows it: `trailer`, or a reference such as `1 0 R`. */
async function readObject(path: string, object: string, options: QpdfOptions): Promise<Record<string, unknown>> {
  // Dictionaries only: stream data stays out of the JSON.
  const json = JSON.parse(await qpdf(["--json=2", "--json-key=qpdf", `--json-object=${object}`, path], options)) as { qpdf: [unknown, Record<string, { value?: unknown }>] };
  const entry = json.qpdf[1][object === "trailer" ? "trailer" : `obj:${object}`];
  const value = entry?.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new JobFailure("corrupt_media", `the PDF's ${object === "trailer" ? "trailer" : "catalog"} is not a dictionary`);
  return value as Record<string, unknown>;
}

/** How a rewrite stores the file's dictionaries: as the input grouped them into object streams, or regrouped by qpdf (100 to a stream). */
export type ObjectStreams = "preserve" | "generate";

/**
 * Writes qpdf's JSON update that drops the document metadata: the Info dictionary, the XMP
 * stream in the catalog and the trailer's document ID (which writers derive from the file's
 * name, path and time; the rewrite gets one computed from its content instead). An
 * encrypted file keeps its ID, from which its keys are derived. Returns undefined, writing
 * nothing, when the file has neither Info nor XMP.
 */
export async function writeMetadataPatch(input: string, patchPath: string, options: QpdfOptions): Promise<MetadataPatch | undefined> {
  const trailer = await readObject(input, "trailer", options);
  const rootRef = trailer["/Root"];
  if (typeof rootRef !== "string") throw new JobFailure("corrupt_media", "the PDF has no document catalog");
  const catalog = await readObject(input, rootRef, options);
  if (!("/Info" in trailer) && !("/Metadata" in catalog)) return undefined;
  const encrypted = "/Encrypt" in trailer;
  const { "/Info": _info, "/ID": id, ...keptTrailer } = trailer;
  const { "/Metadata": _xmp, ...keptCatalog } = catalog;
  const patchedTrailer = encrypted && id !== undefined ? { ...keptTrailer, "/ID": id } : keptTrailer;
  const patch = { qpdf: [{ jsonversion: 2 }, { trailer: { value: patchedTrailer }, [`obj:${rootRef}`]: { value: keptCatalog } }] };
  await claimFile(patchPath);
  await writeFile(patchPath, JSON.stringify(patch));
  return { path: patchPath, encrypted };
}

export interface MetadataPatch {
  path: string;
  encrypted: boolean;
}

/**
 * Rewrites `input` to `output` with the patch applied, losslessly: streams already deflated
 * (and images in their own formats) keep their bytes, others are deflated; dictionaries go
 * into object streams at zlib's highest level.
 */
export async function writeWithPatch(input: string, output: string, patch: MetadataPatch, objectStreams: ObjectStreams, options: QpdfOptions): Promise<void> {
  await qpdf(
    [
      input,
      `--update-from-json=${patch.path}`,
      `--object-streams=${objectStreams}`,
      "--compress-streams=y",
      "--compression-level=9",
      ...(patch.encrypted ? [] : ["--deterministic-id"]),
      output,
    ],
    options,
  );
}

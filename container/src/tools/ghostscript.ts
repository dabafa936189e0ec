// Ghostscript as a process: always with -dSAFER, a time limit and killed on cancel through
// runTool; it may read only its input (and its own resources) and write only its output and
// its own temp directory (docs/security.md, "Untrusted PDFs"). Ghostscript 10 exits 0 on
// most broken inputs and reports them on stdout/stderr, so its words are turned into job
// failures here.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { JobFailure } from "../errors.ts";
import { endedEarly, runTool, type RunResult } from "./spawn.ts";

export const GS = "gs";
/**
 * -dSAFER: file access only to what is permitted below, no %pipe%, no device changes.
 * -dNEWPDF=true: the PDF interpreter written in C (Ghostscript 10's default, named so that it
 * stays chosen), which never runs PostScript XObjects or the `PS` operator, even with -dDOPS.
 */
export const GS_BASE_ARGS = ["-dSAFER", "-dBATCH", "-dNOPAUSE", "-dNEWPDF=true"];

/**
 * The arguments that make Ghostscript read `input` as a PDF and nothing else, and touch only
 * `input` and `output`; they end the argument list. A file named on the command line is run
 * through `run`, which guesses by content and runs anything that looks like PostScript (it
 * starts `%!`, or `%!PS` comes before `%PDF-`); `runpdf` on an opened file goes straight to the
 * PDF interpreter, which fails on anything else ("Couldn't initialise file"). The path
 * reaches PostScript as a -s string, never as source text. Paths must be absolute (a leading
 * `-` would be a switch) and without the wildcards of --permit-file-* (`*`, `?`, `\`).
 */
export function pdfOnlyArgs(input: string, output: string): string[] {
  for (const path of [input, output]) {
    if (!isAbsolute(path)) throw new Error("Ghostscript paths must be absolute");
    if (/[*?\\]/.test(path)) throw new Error(`Ghostscript paths must not hold wildcards: ${path}`);
  }
  return [
    `--permit-file-read=${input}`,
    `--permit-file-write=${output}`,
    // `%` in an output name is a page-number template for Ghostscript.
    `-sOutputFile=${output.replaceAll("%", "%%")}`,
    `-sUntrustedPdf=${input}`,
    "-c",
    "UntrustedPdf (r) file runpdf",
  ];
}

/**
 * Ghostscript's environment: nothing of the processor's, and its temp files (pdfwrite's
 * scratch streams; -dSAFER lets Ghostscript read and write its temp directory, so it must
 * be its own, never the shared work tree) in `tempDir`, a directory of the attempt's own.
 */
export function ghostscriptEnv(tempDir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir, TMPDIR: tempDir, TEMP: tempDir, TMP: tempDir, LC_ALL: "C" };
}

export interface GsRunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Ghostscript's own temp directory (it must exist): see ghostscriptEnv. Without it, a new one under the OS's, removed after the run. */
  tempDir?: string;
  /** Called as Ghostscript starts each page, with the page's number and the document's page count. */
  onPage?: (page: number, pages: number) => void;
}

export interface GsRun extends RunResult {
  /** The document's page count, as the PDF interpreter said before its first page ("Processing pages 1 through N."); 0 if it said none. */
  pages: number;
  /** Pages it went through ("Page N" lines): one output page each. */
  processed: number;
}

/**
 * Runs Ghostscript (without -q, so that it says how many pages there are and which it is
 * on) and reads its page lines as they come: the counts need no pass of their own.
 */
export async function runGhostscript(args: string[], options: GsRunOptions): Promise<GsRun> {
  if (options.tempDir === undefined) {
    const tempDir = await mkdtemp(join(tmpdir(), "gs-"));
    try {
      return await runGhostscript(args, { ...options, tempDir });
    } finally {
      await rm(tempDir, { recursive: true, force: true });
    }
  }
  let pending = "";
  let pages = 0;
  let processed = 0;
  const result = await runTool(GS, args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    env: ghostscriptEnv(options.tempDir),
    onStdout: (chunk) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const range = /^Processing pages (\d+) through (\d+)\.\s*$/.exec(line);
        if (range) pages = Math.max(0, Number(range[2]) - Number(range[1]) + 1);
        const page = /^Page (\d+)\s*$/.exec(line);
        if (page) {
          processed++;
          options.onPage?.(Number(page[1]), pages);
        }
      }
    },
  });
  const early = endedEarly(result, options.signal, `Ghostscript did not finish within ${Math.round(options.timeoutMs / 1000)} s`);
  if (early) throw early;
  return { ...result, pages, processed };
}

/** What Ghostscript said about a file it could not read, or undefined if nothing was wrong. */
export function ghostscriptFailure(result: RunResult): JobFailure | undefined {
  const said = `${result.stdout}\n${result.stderr}`;
  if (/requires a password/i.test(said)) {
    return new JobFailure("encrypted_media", "the PDF is password-protected; remove the password (or send an unprotected copy) and try again", {
      cause: tail(said),
    });
  }
  if (/Couldn't initialise file|No pages will be processed|page not found|Couldn't get page info/i.test(said)) {
    return new JobFailure("corrupt_media", "the PDF is damaged and its pages cannot be recovered", { cause: tail(said) });
  }
  if (result.code !== 0) {
    if (/VMerror|limitcheck/i.test(said)) {
      return new JobFailure("resource_limit_exceeded", "the PDF needs more memory than the processor allows", { cause: tail(said) });
    }
    return new JobFailure("corrupt_media", "the PDF could not be read; it is damaged or not a valid PDF", { cause: tail(said) });
  }
  return undefined;
}

function tail(text: string): string {
  return text.trim().slice(-2000);
}

// Ghostscript as a process: always with -dSAFER (no file access beyond the named files,
// no %pipe%, no device changes), -dBATCH -dNOPAUSE, a time limit and killed on cancel
// through runTool. Ghostscript 10 exits 0 on most broken inputs and reports them on
// stdout/stderr, so its words are turned into job failures here.
import { JobCancelled, JobFailure } from "../errors.ts";
import { runTool, type RunResult } from "./spawn.ts";

export const GS = "gs";
export const GS_BASE_ARGS = ["-dSAFER", "-dBATCH", "-dNOPAUSE"];

export interface GsRunOptions {
  signal: AbortSignal;
  timeoutMs: number;
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
  let pending = "";
  let pages = 0;
  let processed = 0;
  const result = await runTool(GS, args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
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
  if (result.aborted) throw new JobCancelled();
  if (result.timedOut) {
    throw new JobFailure("processing_timeout", `Ghostscript did not finish within ${Math.round(options.timeoutMs / 1000)} s`);
  }
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
      return new JobFailure("processing_failed", "the PDF needs more memory than the processor allows", { cause: tail(said) });
    }
    return new JobFailure("corrupt_media", "the PDF could not be read; it is damaged or not a valid PDF", { cause: tail(said) });
  }
  return undefined;
}

function tail(text: string): string {
  return text.trim().slice(-2000);
}

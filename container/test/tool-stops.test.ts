// A tool run the job stopped is reported as stopped() (src/errors.ts) decides: ended by the
// job's own time limit, processing_timeout; ended by a cancel, JobCancelled. For the tools
// whose wrappers each used to say "cancelled" whatever stopped them: Ghostscript, qpdf and
// heif-convert.
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { JobCancelled, JobFailure } from "../src/errors.ts";
import { runGhostscript } from "../src/tools/ghostscript.ts";
import { decodeHeic } from "../src/tools/heic.ts";
import { inspectPdf } from "../src/tools/qpdf.ts";

/** A job's time limit that has fired: the signal the job table's AbortSignal.timeout gives. */
async function timeLimitFired(): Promise<AbortSignal> {
  const signal = AbortSignal.timeout(1);
  await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  return signal;
}

function cancelled(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

const runs: [string, (signal: AbortSignal) => Promise<unknown>][] = [
  ["ghostscript", (signal) => runGhostscript(["-dBATCH", "-dNOPAUSE", "-sDEVICE=nullpage", "input.pdf"], { signal, timeoutMs: 60_000 })],
  ["qpdf", (signal) => inspectPdf("input.pdf", { signal, timeoutMs: 60_000 })],
  ["heic", (signal) => decodeHeic("input.heic", tmpdir(), signal)],
];

describe.each(runs)("%s, stopped by the job", (_tool, run) => {
  it("by its time limit: processing_timeout", async () => {
    const error = await run(await timeLimitFired()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailure);
    expect((error as JobFailure).code).toBe("processing_timeout");
  });

  it("by a cancel: JobCancelled", async () => {
    const error = await run(cancelled()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobCancelled);
  });
});

// Hostile PDFs (issue 33): PostScript in PDF clothing, PDFs that embed PostScript or
// JavaScript, and a hostile job running beside another tenant's. Each ends with a specific
// code in bounded time, runs nothing, and carries nothing it should not have read.
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../src/config.ts";
import { JobTable } from "../src/jobs.ts";
import { buildArgs } from "../src/processors/compress-pdf.ts";
import { runGhostscript } from "../src/tools/ghostscript.ts";
import { runJob, startMediaServer, testConfig, withTempDir, type FinishedJob, type MediaServer } from "./helpers.ts";
import { buildPdf } from "./pdf-fixtures.ts";

const exec = promisify(execFile);
/** What no hostile job may read: another job's input, in a sibling of its work directory. */
const SECRET = "SIBLING-SECRET-7f3a9c";
const DEADLINE_MS = 20_000;

let media: MediaServer;
let config: Config;
let secretPath: string;

beforeAll(async () => {
  media = await startMediaServer();
  config = await testConfig();
  await mkdir(join(config.workDir, "other-job"), { recursive: true });
  secretPath = join(config.workDir, "other-job", "input");
  await writeFile(secretPath, `${SECRET}\n`);
});
afterAll(() => media.close());

/**
 * A PostScript program that lists the work tree and /tmp, reads the other job's input and
 * draws what it found on a page (and prints it): run by anything, the secret would show.
 */
function thief(): string {
  return [
    `(${config.workDir}/*) { = } 1024 string filenameforall`,
    `(/tmp/*) { = } 1024 string filenameforall`,
    `/secret (${secretPath}) (r) file 64 string readstring pop def`,
    `secret =`,
    `/Helvetica findfont 24 scalefont setfont 72 400 moveto secret show showpage`,
  ].join("\n");
}

/** Whatever a finished job left anywhere: its outputs' bytes, decompressed by qpdf when they parse, and its error. */
async function everything(job: FinishedJob): Promise<string> {
  const parts = [JSON.stringify(job.state)];
  for (const output of "outputs" in job.state ? (job.state.outputs ?? []) : []) {
    const bytes = await job.output(output.name);
    parts.push(bytes.toString("latin1"), (await decompressed(bytes)).toString("latin1"));
  }
  return parts.join("\n");
}

/** `pdf` with every stream decompressed and no object streams (`qpdf --qdf`). */
async function decompressed(pdf: Buffer): Promise<Buffer> {
  return withTempDir(async (dir) => {
    await writeFile(join(dir, "in.pdf"), pdf);
    await exec("qpdf", ["--qdf", "--object-streams=disable", join(dir, "in.pdf"), join(dir, "out.pdf")]).catch((error: { code?: number }) => {
      if (error.code !== 3) throw error;
    });
    return readFile(join(dir, "out.pdf"));
  });
}

function run(name: string, body: Buffer | string, table?: JobTable) {
  const url = media.serve(`/${name}.pdf`, body, "application/pdf");
  return runJob("compressPdf", { url, quality: "low" }, { config, table, deadlineMs: DEADLINE_MS });
}

describe("hostile PDFs", () => {
  it("refuses PostScript in PDF clothing (`% %PDF-1.4` in a comment) as unsupported_media, running nothing", async () => {
    const job = await run("ps-clothing", `%!PS-Adobe-3.0\n% %PDF-1.4\n${thief()}\n`);
    expect(job.state).toMatchObject({ state: "failed", error: { code: "unsupported_media", message: expect.stringMatching(/PostScript, not a PDF.*convert it to PDF/) } });
    expect(job.steps).toEqual([]);
    expect(await everything(job)).not.toContain(SECRET);
  });

  it("refuses the same program behind junk and a real %PDF- header as unsupported_media", async () => {
    const job = await run("junk-header", `junk\n%PDF-1.4\n${thief()}\n`);
    expect(job.state).toMatchObject({ state: "failed", error: { code: "unsupported_media", message: expect.stringMatching(/5 bytes of something else before its %PDF- header/) } });
    expect(job.steps).toEqual([]);
  });

  it("fails a PostScript program that starts with a %PDF- header as corrupt_media: qpdf refuses it before Ghostscript", async () => {
    const job = await run("pdf-header-ps", `%PDF-1.4\n${thief()}\n`);
    expect(job.state).toMatchObject({ state: "failed", error: { code: "corrupt_media" } });
    expect(job.steps.map((s) => s.step)).toEqual(["qpdf"]);
    expect(await everything(job)).not.toContain(SECRET);
  });

  it("has Ghostscript read its input as a PDF only, even if handed PostScript directly", async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, "input");
      await writeFile(input, `%!PS-Adobe-3.0\n${thief()}\n`);
      const result = await runGhostscript(buildArgs({ quality: "low", removeMetadata: false }, { input, output: join(dir, "out.pdf") }), {
        signal: new AbortController().signal,
        timeoutMs: DEADLINE_MS,
      });
      expect(`${result.stdout}${result.stderr}`).toMatch(/Couldn't initialise file/);
      expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    });
  });

  it("keeps Ghostscript, were it to run PostScript, from reading anything but its input and its own temp directory", async () => {
    // Our own program, run in the confinement the processor gives Ghostscript: the job's
    // sibling and the work tree stay closed (the attack listed /tmp/media-jobs/*).
    await withTempDir(async (dir) => {
      const input = join(dir, "input");
      await writeFile(input, "%PDF-1.4\n");
      await mkdir(join(dir, "gs-tmp"));
      const result = await runGhostscript(["-dSAFER", "-dBATCH", "-dNOPAUSE", "-dNODISPLAY", `--permit-file-read=${input}`, "-c", thief().replace(/^.*showpage$/m, "")], {
        signal: new AbortController().signal,
        timeoutMs: DEADLINE_MS,
        tempDir: join(dir, "gs-tmp"),
      });
      const said = `${result.stdout}${result.stderr}`;
      expect(said).toMatch(/invalidfileaccess/);
      expect(said).not.toContain(SECRET);
      // filenameforall printed no name of the work tree (the error's stack dump quotes the program's own strings).
      expect(said.split("\n").filter((line) => line.startsWith(config.workDir))).toEqual([]);
    });
  });

  it("runs none of a PDF's embedded PostScript (XObject, form /Subtype2 /PS, `PS` operator): it completes without the secret", async () => {
    const pdf = buildPdf([{ lines: ["harmless visible words"], postscript: thief() }]);
    // The fixture does hold the program: the legacy interpreter with -dDOPS would run it.
    expect(pdf.toString("latin1")).toContain(secretPath);
    const job = await run("embedded-ps", pdf);
    expect(job.state).toMatchObject({ state: "completed", result: { pages: 1, keptOriginal: false } });
    const seen = await everything(job);
    expect(seen).not.toContain(SECRET);
    // The program itself is not passed on either: the original bytes are not returned.
    expect(seen).not.toContain(secretPath);
  });

  it("returns a PDF with JavaScript (open action, names tree, link action) without any script", async () => {
    const pdf = buildPdf([{ lines: ["a form with scripts"], scriptLink: "app.launchURL('https://evil.example/')", links: 2 }], { javascript: "app.alert('opened')" });
    const job = await run("javascript", pdf);
    expect(job.state).toMatchObject({ state: "completed", result: { pages: 1, keptOriginal: false } });
    const seen = await everything(job);
    for (const needle of ["/JavaScript", "/JS", "/OpenAction", "app.alert", "evil.example", "/Launch"]) expect(seen).not.toContain(needle);
  });

  it("keeps another job's input from a hostile job running beside it on the same processor", async () => {
    const table = new JobTable(config);
    const NEIGHBOUR = "NEIGHBOUR-INPUT-51d0e2";
    const normal = buildPdf(
      Array.from({ length: 30 }, (_, i) => ({ lines: [`${NEIGHBOUR} page ${i}`, ...Array.from({ length: 30 }, (_, j) => `line ${j} of the neighbour's document`)] })),
      { info: { Title: NEIGHBOUR } },
    );
    const neighbourThief = [`(${config.workDir}/*/input) { (r) file 256 string readstring pop = } 1024 string filenameforall`, thief()].join("\n");
    const started = Date.now();
    const [neighbour, clothing, embedded] = await Promise.all([
      run("neighbour", normal, table),
      run("beside-clothing", `%!PS-Adobe-3.0\n% %PDF-1.4\n${neighbourThief}\n`, table),
      run("beside-embedded", buildPdf([{ lines: ["words"], postscript: neighbourThief }]), table),
    ]);
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
    expect(neighbour.state).toMatchObject({ state: "completed", result: { pages: 30 } });
    expect(clothing.state).toMatchObject({ state: "failed", error: { code: "unsupported_media" } });
    expect(embedded.state).toMatchObject({ state: "completed" });
    for (const hostile of [clothing, embedded]) {
      const seen = await everything(hostile);
      expect(seen).not.toContain(NEIGHBOUR);
      expect(seen).not.toContain(SECRET);
    }
  });
});

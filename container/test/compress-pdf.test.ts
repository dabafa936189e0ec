import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobCancelled, JobFailure } from "../src/errors.ts";
import { buildArgs } from "../src/processors/compress-pdf.ts";
import { runGhostscript } from "../src/tools/ghostscript.ts";
import { buildPdf, photoJpeg, xmpPacket } from "./pdf-fixtures.ts";
import { runJob, startMediaServer, withTempDir, type MediaServer } from "./helpers.ts";

const exec = promisify(execFile);

let media: MediaServer;
let photoPdf: Buffer;
let textPdf: Buffer;
/** Many small text pages: Ghostscript's rewrite is larger than this hand-written file. */
let pagesPdf: Buffer;
/**
 * A reference manual: 60 pages of text with 20 cross-reference links each, packed at zlib's
 * highest level with all its dictionaries in one object stream. Ghostscript's rewrite at
 * `high` and qpdf's regrouping (100 objects to a stream) are both larger than it.
 */
let manualPdf: Buffer;
const MANUAL_PAGES = 60;
/** The manual's form packed tighter still (a predicted cross-reference stream), in "never refuses". */
const TIGHT_PAGES = 40;
const INFO = { Title: "Secret Title", Author: "Jane Author", Producer: "HandMade Writer", Creator: "Fixture Maker", CreationDate: "D:20200101000000Z" };
const WORDS = ["Quarterly", "report", "alpha", "bravo", "charlie", "Second", "echo", "foxtrot"];

beforeAll(async () => {
  media = await startMediaServer();
  const jpeg = await photoJpeg(1800, 2400);
  photoPdf = buildPdf(
    [{ lines: ["Quarterly report alpha", "bravo charlie delta"], jpeg }, { lines: ["Second page echo foxtrot"] }],
    { info: INFO, xmp: xmpPacket("Secret Title", "Jane Author") },
  );
  textPdf = buildPdf([{ lines: ["just a little text here"] }], { info: INFO });
  pagesPdf = buildPdf(
    Array.from({ length: 12 }, (_, i) => ({ lines: [`page ${i + 1} words`] })),
    { info: INFO, xmp: xmpPacket("Secret Title", "Jane Author") },
  );
  manualPdf = buildPdf(
    Array.from({ length: MANUAL_PAGES }, (_, p) => ({
      links: 20,
      lines: Array.from({ length: 40 }, (_, i) => `${p + 1}.${i + 1} option --flag-${(p * 31 + i) % 97} sets parameter ${i * 7 + p}; see page ${(p * 13 + i) % MANUAL_PAGES}`),
    })),
    { packed: true, info: INFO, xmp: xmpPacket("Secret Title", "Jane Author") },
  );
});
afterAll(() => media.close());

function completed(state: { state: string }) {
  if (state.state !== "completed") throw new Error(`expected completed, got ${JSON.stringify(state)}`);
  return state as { state: "completed"; result: Record<string, any>; outputs: { name: string; size: number; contentType: string }[] };
}

/** Page count and Info entries, as Ghostscript's PDFINFO reports them. */
async function pdfInfo(pdf: Buffer): Promise<{ pages: number; info: Record<string, string> }> {
  return withTempDir(async (dir) => {
    const path = join(dir, "probe.pdf");
    await writeFile(path, pdf);
    const { stdout, stderr } = await exec("gs", ["-q", "-dNODISPLAY", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dPDFINFO", path]);
    const text = stdout + stderr;
    const info: Record<string, string> = {};
    for (const m of text.matchAll(/^(Title|Author|Subject|Keywords|Creator|Producer|CreationDate|ModDate): (.*)$/gm)) info[m[1]!] = m[2]!;
    return { pages: Number(/File has (\d+) pages?/.exec(text)?.[1] ?? 0), info };
  });
}

async function pdfWords(pdf: Buffer, pages?: { first: number; last: number }): Promise<string[]> {
  return withTempDir(async (dir) => {
    const path = join(dir, "text.pdf");
    await writeFile(path, pdf);
    const range = pages ? [`-dFirstPage=${pages.first}`, `-dLastPage=${pages.last}`] : [];
    const { stdout } = await exec("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", ...range, "-sDEVICE=txtwrite", "-sOutputFile=-", path]);
    return stdout.split(/\s+/).filter(Boolean);
  });
}

function failure(state: { state: string }) {
  return state as { state: string; error?: { code: string; message: string } };
}

describe("compressPdf buildArgs", () => {
  const paths = { input: "/work/job/input", output: "/work/job/compressed.pdf" };
  it.each([
    ["low", "/screen"],
    ["medium", "/ebook"],
    ["high", "/printer"],
  ] as const)("quality %s uses the %s distiller settings, safely", (quality, preset) => {
    const args = buildArgs({ quality, removeMetadata: false }, paths);
    expect(args.slice(0, 4)).toEqual(["-dSAFER", "-dBATCH", "-dNOPAUSE", "-dNEWPDF=true"]);
    expect(args).toContain("-sDEVICE=pdfwrite");
    expect(args).toContain(`-dPDFSETTINGS=${preset}`);
    expect(args).toEqual(
      expect.arrayContaining(["-dCompatibilityLevel=1.5", "-dDetectDuplicateImages=true", "-dCompressFonts=true", "-dSubsetFonts=true", "-dAutoRotatePages=/None"]),
    );
    expect(args).not.toContain("-dOmitXMP=true");
    expect(args).not.toContain("-dPreserveAnnots=false");
    // The input is opened by the PDF interpreter itself, never named for `run` to guess at.
    expect(args.slice(-6)).toEqual([
      `--permit-file-read=${paths.input}`,
      `--permit-file-write=${paths.output}`,
      `-sOutputFile=${paths.output}`,
      `-sUntrustedPdf=${paths.input}`,
      "-c",
      "UntrustedPdf (r) file runpdf",
    ]);
    expect(args.filter((a) => a === paths.input)).toEqual([]);
  });

  it("drops annotations (where Ghostscript keeps script actions) for a document with active content", () => {
    expect(buildArgs({ quality: "medium", removeMetadata: false }, paths, true)).toContain("-dPreserveAnnots=false");
  });

  it("asks Ghostscript not to write XMP or dates when metadata is to be removed", () => {
    expect(buildArgs({ quality: "medium", removeMetadata: true }, paths)).toEqual(expect.arrayContaining(["-dOmitXMP=true", "-dOmitInfoDate=true"]));
  });

  it("escapes % in the output path and refuses relative paths", () => {
    expect(buildArgs({ quality: "low", removeMetadata: false }, { input: "/in", output: "/a%d/out.pdf" })).toContain("-sOutputFile=/a%%d/out.pdf");
    expect(() => buildArgs({ quality: "low", removeMetadata: false }, { input: "-dNOSAFER", output: "/out.pdf" })).toThrow(/absolute/);
    expect(() => buildArgs({ quality: "low", removeMetadata: false }, { input: "/jobs/*", output: "/out.pdf" })).toThrow(/wildcards/);
  });
});

describe("compressPdf", () => {
  it("shrinks a photo PDF more at lower quality, keeping every page and word", async () => {
    const url = media.serve("/photo.pdf", photoPdf, "application/pdf");
    const sizes: Record<string, number> = {};
    for (const quality of ["low", "medium", "high"] as const) {
      const job = await runJob("compressPdf", { url, quality });
      const { result, outputs } = completed(job.state);
      const bytes = await job.output(result.url);
      expect(result).toMatchObject({ url: "document.pdf", format: "pdf", size: bytes.length, pages: 2, source: { size: photoPdf.length, pages: 2 } });
      expect(outputs).toEqual([{ name: "document.pdf", contentType: "application/pdf", size: bytes.length }]);
      expect(bytes.length).toBeLessThanOrEqual(photoPdf.length);
      expect(result.compressionRatio).toBeCloseTo(bytes.length / photoPdf.length, 3);
      expect((await pdfInfo(bytes)).pages).toBe(2);
      expect(await pdfWords(bytes)).toEqual(expect.arrayContaining(WORDS));
      expect(job.progress.at(-1)).toBe(100);
      sizes[quality] = bytes.length;
    }
    expect(sizes.low!).toBeLessThan(sizes.medium!);
    expect(sizes.medium!).toBeLessThan(sizes.high!);
    expect(sizes.low!).toBeLessThan(photoPdf.length / 4);
  });

  it("runs Ghostscript once, after qpdf has parsed the file: both page counts come from its pdfwrite run", async () => {
    const job = await runJob("compressPdf", { url: media.serve("/once.pdf", photoPdf), quality: "low" });
    expect(completed(job.state).result).toMatchObject({ keptOriginal: false, pages: 2, source: { pages: 2 } });
    expect(job.steps.map((s) => s.step)).toEqual(["qpdf", "gs"]);
  });

  it("keeps the document metadata by default", async () => {
    const job = await runJob("compressPdf", { url: media.serve("/keep-meta.pdf", photoPdf), quality: "low" });
    const { info } = await pdfInfo(await job.output(completed(job.state).result.url));
    expect(info).toMatchObject({ Title: "Secret Title", Author: "Jane Author" });
  });

  it("removes every Info entry and the XMP stream when asked", async () => {
    const job = await runJob("compressPdf", { url: media.serve("/strip-meta.pdf", photoPdf), quality: "medium", removeMetadata: true });
    const { result } = completed(job.state);
    expect(result.keptOriginal).toBe(false);
    const bytes = await job.output(result.url);
    const { pages, info } = await pdfInfo(bytes);
    expect(pages).toBe(2);
    expect(info).toEqual({});
    const text = bytes.toString("latin1");
    for (const needle of ["Secret Title", "Jane Author", "HandMade", "Fixture Maker", "Ghostscript", "xmpmeta", "/Metadata", "/CreationDate", "/Producer"]) {
      expect(text).not.toContain(needle);
    }
    expect(await pdfWords(bytes)).toEqual(expect.arrayContaining(WORDS));
  });

  it("returns the input unchanged when recompression would make it larger", async () => {
    const job = await runJob("compressPdf", { url: media.serve("/small.pdf", textPdf), quality: "high" });
    const { result } = completed(job.state);
    expect(result).toMatchObject({ keptOriginal: true, compressionRatio: 1, size: textPdf.length, pages: 1, source: { size: textPdf.length, pages: 1 } });
    expect(Buffer.compare(await job.output(result.url), textPdf)).toBe(0);
  });

  it("returns the input rewritten without its metadata when Ghostscript cannot beat it and removeMetadata is set", async () => {
    const job = await runJob("compressPdf", { url: media.serve("/pages-strip.pdf", pagesPdf), removeMetadata: true });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect(result).toMatchObject({ keptOriginal: true, size: bytes.length, compressionRatio: Number((bytes.length / pagesPdf.length).toFixed(4)), pages: 12 });
    expect(bytes.length).toBeLessThanOrEqual(pagesPdf.length);
    expectNoMetadata(bytes);
    expect(await pdfInfo(bytes)).toEqual({ pages: 12, info: {} });
    expect(await pdfWords(bytes)).toEqual(expect.arrayContaining(["page", "12", "words"]));
  });

  it("removes metadata kept in object streams without growing the file (the old in-place scrub could not)", async () => {
    const packed = await withTempDir(async (dir) => {
      await writeFile(join(dir, "in.pdf"), pagesPdf);
      await exec("qpdf", ["--object-streams=generate", "--compress-streams=y", join(dir, "in.pdf"), join(dir, "packed.pdf")]);
      return readFile(join(dir, "packed.pdf"));
    });
    expect(packed.toString("latin1")).toContain("/ObjStm");
    const job = await runJob("compressPdf", { url: media.serve("/packed.pdf", packed), quality: "high", removeMetadata: true });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect(bytes.length).toBeLessThanOrEqual(packed.length);
    expect(result).toMatchObject({ size: bytes.length, pages: 12, source: { size: packed.length, pages: 12 } });
    expect(await pdfInfo(bytes)).toEqual({ pages: 12, info: {} });
    expectNoMetadata(bytes);
  });

  it("removes the metadata of a tightly packed manual that Ghostscript and qpdf's regrouping both make larger (issue 26: it failed processing_failed)", async () => {
    // Why it failed: neither rewrite that removed the metadata came out smaller than the input.
    const regrouped = await qpdfRewrite(manualPdf, ["--object-streams=generate"]);
    expect(regrouped.length).toBeGreaterThan(manualPdf.length);
    const url = media.serve("/manual.pdf", manualPdf, "application/pdf");
    // At `high` (Ghostscript keeps the links, taking some 10 s over them): the quality that failed.
    const job = await runJob("compressPdf", { url, quality: "high", removeMetadata: true });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect(bytes.length).toBeLessThanOrEqual(manualPdf.length);
    expect(result).toMatchObject({ size: bytes.length, pages: MANUAL_PAGES, source: { size: manualPdf.length, pages: MANUAL_PAGES } });
    expect(result.compressionRatio).toBeCloseTo(bytes.length / manualPdf.length, 3);
    expect(result.keptOriginal).toBe(true);
    // qpdf, not Ghostscript's PDFINFO, which takes seconds over 5,220 links.
    expect(await qpdfDocument(bytes)).toMatchObject({ pages: MANUAL_PAGES, info: false, xmp: false });
    // Uncompressed by qpdf: no metadata anywhere; with the lossless path every link is still there.
    const plain = await qpdfRewrite(bytes, ["--qdf", "--object-streams=disable"]);
    expectNoMetadata(plain);
    expect(plain.toString("latin1").match(/\/Subtype \/Link/g)).toHaveLength(MANUAL_PAGES * 20);
    expect(await pdfWords(bytes, { first: 1, last: 1 })).toEqual(expect.arrayContaining(["1.1", "--flag-0", "1.40", "parameter"]));
    expect(await pdfWords(bytes, { first: MANUAL_PAGES, last: MANUAL_PAGES })).toEqual(expect.arrayContaining([`${MANUAL_PAGES}.1`, `${MANUAL_PAGES}.40`, "parameter"]));
  });

  it("never refuses: a file packed tighter than qpdf writes, whose metadata weighs less than that, comes back without it and a little larger", async () => {
    // The manual's form with a PNG-predicted cross-reference stream and a one-entry Info:
    // qpdf's dictionaries (spaced, in its own words) cost more than the Title saves.
    const tight = buildPdf(
      Array.from({ length: TIGHT_PAGES }, (_, p) => ({ links: 20, lines: Array.from({ length: 40 }, (_, i) => `${p + 1}.${i + 1} option --flag-${(p * 31 + i) % 97} sets parameter ${i * 7 + p}`) })),
      { packed: true, xrefPredictor: true, info: { Title: "Secret Title" } },
    );
    const job = await runJob("compressPdf", { url: media.serve("/tight.pdf", tight), quality: "high", removeMetadata: true });
    const { result } = completed(job.state);
    const bytes = await job.output(result.url);
    expect(bytes.length).toBeGreaterThan(tight.length);
    expect(result).toMatchObject({ keptOriginal: true, size: bytes.length, pages: TIGHT_PAGES, compressionRatio: Number((bytes.length / tight.length).toFixed(4)) });
    expect(result.compressionRatio).toBeLessThan(1.01);
    expect(await qpdfDocument(bytes)).toMatchObject({ pages: TIGHT_PAGES, info: false, xmp: false });
    const plain = await qpdfRewrite(bytes, ["--qdf", "--object-streams=disable"]);
    expectNoMetadata(plain);
    expect(plain.toString("latin1").match(/\/Subtype \/Link/g)).toHaveLength(TIGHT_PAGES * 20);
  });

  it.each(["high", "low"] as const)("replaces the document ID the input was written with (quality %s)", async (quality) => {
    // qpdf's --static-id writes a fixed, recognizable ID.
    const withId = await qpdfRewrite(pagesPdf, ["--static-id"]);
    const before = await qpdfDocument(withId);
    expect(before).toMatchObject({ info: true, xmp: true, id: [expect.any(String), expect.any(String)] });
    const job = await runJob("compressPdf", { url: media.serve(`/with-id-${quality}.pdf`, withId), quality, removeMetadata: true });
    const bytes = await job.output(completed(job.state).result.url);
    const after = await qpdfDocument(bytes);
    expect(after).toMatchObject({ pages: 12, info: false, xmp: false });
    expect(JSON.stringify(after.id)).not.toContain((before.id as string[])[0]!.slice(2, 18));
  });

  it("returns a PDF without metadata unchanged when nothing beats it", async () => {
    const bare = buildPdf([{ lines: ["no metadata here"] }]);
    const job = await runJob("compressPdf", { url: media.serve("/bare.pdf", bare), quality: "high", removeMetadata: true });
    const { result } = completed(job.state);
    expect(result).toMatchObject({ keptOriginal: true, compressionRatio: 1, size: bare.length });
    expect(Buffer.compare(await job.output(result.url), bare)).toBe(0);
  });

  it.each([false, true])("is never larger than the input, at every quality (removeMetadata %s)", async (removeMetadata) => {
    for (const [name, pdf] of [["text", textPdf], ["pages", pagesPdf]] as const) {
      for (const quality of ["low", "medium", "high"] as const) {
        const job = await runJob("compressPdf", { url: media.serve(`/never-${name}-${quality}-${removeMetadata}.pdf`, pdf), quality, removeMetadata });
        const { result } = completed(job.state);
        const bytes = await job.output(result.url);
        expect(bytes.length, `${name} ${quality}`).toBeLessThanOrEqual(pdf.length);
        expect(result.size).toBe(bytes.length);
        if (removeMetadata) expectNoMetadata(bytes);
      }
    }
  });

  it("accepts a PDF after a UTF-8 byte order mark and white-space, as the header's line allows", async () => {
    const prefixed = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("\r\n \t\n"), textPdf]);
    const job = await runJob("compressPdf", { url: media.serve("/bom.pdf", prefixed), quality: "low" });
    expect(completed(job.state).result).toMatchObject({ pages: 1 });
  });

  it("processes a damaged PDF that Ghostscript can repair (every offset in the cross-reference table wrong)", async () => {
    const damaged = Buffer.concat([photoPdf.subarray(0, 15), Buffer.from("% junk that shifts every object\n"), photoPdf.subarray(15)]);
    const job = await runJob("compressPdf", { url: media.serve("/shifted.pdf", damaged) });
    const { result } = completed(job.state);
    expect(result.pages).toBe(2);
    expect(await pdfWords(await job.output(result.url))).toEqual(expect.arrayContaining(WORDS));
  });

  it.each([
    ["cut in half, losing its pages", () => photoPdf.subarray(0, Math.floor(photoPdf.length / 2))],
    ["a PDF header followed by garbage", () => Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0xa5)])],
  ])("fails a PDF %s with corrupt_media", async (_name, make) => {
    const job = await runJob("compressPdf", { url: media.serve(`/corrupt-${_name.length}.pdf`, make()) });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "corrupt_media" } });
  });

  it("fails a password-protected PDF with encrypted_media", async () => {
    const encrypted = await withTempDir(async (dir) => {
      await writeFile(join(dir, "plain.pdf"), textPdf);
      await exec("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite", "-sUserPassword=secret", "-sOwnerPassword=owner", "-dEncryptionR=3", "-dKeyLength=128", `-sOutputFile=${join(dir, "enc.pdf")}`, join(dir, "plain.pdf")]);
      return readFile(join(dir, "enc.pdf"));
    });
    const job = await runJob("compressPdf", { url: media.serve("/encrypted.pdf", encrypted, "application/pdf") });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "encrypted_media", message: expect.stringMatching(/password/) } });
  });

  it.each([
    ["an HTML page served as application/pdf", "<!DOCTYPE html><html><body>Login required</body></html>", /HTML/],
    ["a JPEG named .pdf", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]), /not a PDF/],
    ["an empty file", "", /empty/],
    ["PostScript", "%!PS-Adobe-3.0\n%%Title: report\nshowpage\n", /PostScript, not a PDF.*convert it to PDF/],
    ["EPS", "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", /EPS.*convert it to PDF/],
    ["EPS with a DOS binary header", Buffer.concat([Buffer.from([0xc5, 0xd0, 0xd3, 0xc6]), Buffer.alloc(60)]), /EPS.*convert it to PDF/],
    ["text before a %PDF- header", "Here is your file:\n%PDF-1.4\n", /19 bytes of something else before its %PDF- header/],
    ["a header naming no version", "%PDF-X\n", /%PDF-1\.x or %PDF-2\.x/],
  ])("fails %s with unsupported_media", async (name, body, message) => {
    const job = await runJob("compressPdf", { url: media.serve(`/not-pdf-${name.length}.pdf`, body, "application/pdf") });
    expect(failure(job.state)).toMatchObject({ state: "failed", error: { code: "unsupported_media", message: expect.stringMatching(message) } });
  });
});

describe("Ghostscript runs", () => {
  const loop = ["-q", "-dNODISPLAY", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-c", "{} loop"];

  it("are killed when the job is cancelled", async () => {
    const controller = new AbortController();
    const run = runGhostscript(loop, { signal: controller.signal, timeoutMs: 60_000 });
    setImmediate(() => controller.abort());
    await expect(run).rejects.toBeInstanceOf(JobCancelled);
  });

  it("fail processing_timeout past their time limit", async () => {
    const run = runGhostscript(loop, { signal: new AbortController().signal, timeoutMs: 300 });
    await expect(run).rejects.toSatisfy((e: unknown) => e instanceof JobFailure && e.code === "processing_timeout");
  });
});

/** `pdf` rewritten by qpdf with `args`. */
async function qpdfRewrite(pdf: Buffer, args: string[]): Promise<Buffer> {
  return withTempDir(async (dir) => {
    await writeFile(join(dir, "in.pdf"), pdf);
    await exec("qpdf", [...args, join(dir, "in.pdf"), join(dir, "out.pdf")]);
    return readFile(join(dir, "out.pdf"));
  });
}

/** The page count, whether the trailer names an Info dictionary and the catalog an XMP stream, and the document ID, as qpdf reads them. */
async function qpdfDocument(pdf: Buffer): Promise<{ pages: number; info: boolean; xmp: boolean; id: unknown }> {
  return withTempDir(async (dir) => {
    await writeFile(join(dir, "doc.pdf"), pdf);
    const { stdout } = await exec("qpdf", ["--json=2", "--json-key=qpdf", join(dir, "doc.pdf")], { maxBuffer: 64 << 20 });
    const objects = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] }).qpdf[1];
    const trailer = objects.trailer!.value!;
    const catalog = objects[`obj:${trailer["/Root"] as string}`]!.value!;
    const { stdout: pages } = await exec("qpdf", ["--show-npages", join(dir, "doc.pdf")]);
    return { pages: Number(pages), info: "/Info" in trailer, xmp: "/Metadata" in catalog, id: trailer["/ID"] };
  });
}

/** None of the fixtures' Info values, no XMP packet, no Info or Metadata key. */
function expectNoMetadata(bytes: Buffer) {
  const text = bytes.toString("latin1");
  for (const needle of ["Secret Title", "Jane Author", "HandMade", "Fixture Maker", "Ghostscript", "xmpmeta", "/Metadata", "/Info", "/CreationDate", "/Producer"]) expect(text).not.toContain(needle);
}

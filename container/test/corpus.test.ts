// Every file of the damaged-and-unusual corpus (test/support/corpus.ts) through the job it
// names: the expected failure code and message, or a correct output; within a deadline,
// with no tool process left on the job's files, and outputs that decode.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORPUS, makeCorpus, outcomeMismatch, type CorpusFile } from "../../test/support/corpus.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { runJob, startMediaServer, testConfig, type MediaServer } from "./helpers.ts";

let media: MediaServer;
let dir: string;
let files: Map<string, CorpusFile>;

beforeAll(async () => {
  media = await startMediaServer();
  dir = await mkdtemp(join(tmpdir(), "media-jobs-corpus-"));
  files = new Map((await makeCorpus(dir)).map((f) => [f.case.name, f]));
}, 180_000);

afterAll(async () => {
  await media.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the damaged and unusual media corpus", () => {
  it.each(CORPUS.map((c) => [c.name, c.what, c] as const))("%s (%s) ends as expected, leaving nothing running", async (name, _what, corpusCase) => {
    const { bytes } = files.get(name)!;
    const config = await testConfig();
    const url = media.serve(`/corpus/${name}`, bytes, corpusCase.contentType);
    // Bounded: the harness fails a job still running after the deadline.
    const job = await runJob(corpusCase.type, { url, ...corpusCase.params } as never, { config, deadlineMs: 60_000 });
    const state = job.state as { state: string; error?: { code: string; message: string }; result?: Record<string, any> };
    expect(outcomeMismatch(corpusCase.expected, state)).toBeUndefined();
    expect(await processesMentioning(config.workDir)).toEqual([]);
    if (state.state === "completed") {
      for (const output of (job.state as { outputs: { name: string; contentType: string }[] }).outputs) {
        const data = await job.output(output.name);
        if (output.contentType.startsWith("image/")) expect((await sharp(data).metadata()).width).toBeGreaterThan(0);
        if (output.contentType === "application/pdf") expect(data.subarray(0, 5).toString("latin1")).toBe("%PDF-");
        expect(data.length).toBeGreaterThan(0);
      }
    } else {
      // A failed job's files are gone at once.
      await expect(readFile(join(config.workDir, "input"))).rejects.toThrow();
    }
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("measures the length of a file that does not state it, and refuses one over the limit", async () => {
    const config = await testConfig({ MAX_VIDEO_DURATION_S: "2" });
    const url = media.serve("/corpus/limit/recorded.mkv", files.get("recorded.mkv")!.bytes, "video/x-matroska");
    const job = await runJob("videoThumbnail", { url }, { config });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "duration_limit_exceeded", message: expect.stringMatching(/over the limit of 2 s/) } });
    await rm(config.workDir, { recursive: true, force: true });
  });
});

// Test harness for processor modules: a local file server for inputs and a job table
// driven the way the runner drives it (start, poll to the end, read outputs).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll } from "vitest";
import type { ProcessorJobState } from "../../src/contract/processor-protocol.ts";
import { jobTypes, type JobParamsInput, type JobType } from "../../src/contract/registry.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { JobTable } from "../src/jobs.ts";
import type { StepTime } from "../src/steps.ts";

export interface MediaServer {
  /** URL at which `body` is served; `contentType` is what the server claims. */
  serve(path: string, body: Buffer | string, contentType?: string): string;
  url(path: string): string;
  close(): Promise<void>;
  server: Server;
}

export async function startMediaServer(): Promise<MediaServer> {
  const files = new Map<string, { body: Buffer; contentType: string }>();
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? "");
    if (!file) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": file.contentType, "content-length": file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    serve(path, body, contentType = "application/octet-stream") {
      files.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), contentType });
      return base + path;
    },
    url: (path) => base + path,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A media server and a test config for the describe block that calls it: started before its
 * tests, closed and the config's work directory removed after them. Read its fields inside
 * the tests (they are set by the time a test runs).
 */
export function mediaForTests(overrides: Record<string, string> = {}): { media: MediaServer; config: Config } {
  const fixture = {} as { media: MediaServer; config: Config };
  beforeAll(async () => {
    fixture.media = await startMediaServer();
    fixture.config = await testConfig(overrides);
  });
  afterAll(async () => {
    await fixture.media.close();
    await rm(fixture.config.workDir, { recursive: true, force: true });
  });
  return fixture;
}

export async function testConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-test-"));
  // Tests run as root, with each attempt's tools under a uid of its own (docs/security.md).
  return loadConfig({ WORK_DIR: dir, ALLOW_PRIVATE_NETWORK_INPUTS: "true", ISOLATION: "on", ...overrides }, tmpdir());
}

export interface FinishedJob {
  state: ProcessorJobState;
  /** Progress values seen while polling, in order. */
  progress: number[];
  /** Reads an output's bytes by the name that the result's `url` holds. */
  output(name: string): Promise<Buffer>;
  outputPath(name: string): string;
  table: JobTable;
  /** The job's tool runs and sharp steps, in order (container/src/steps.ts). */
  steps: StepTime[];
}

let counter = 0;

/** Runs one job to its end on a fresh job table, polling with a deadline. */
export async function runJob<T extends JobType>(
  type: T,
  params: JobParamsInput<T>,
  options: { config?: Config; table?: JobTable; deadlineMs?: number } = {},
): Promise<FinishedJob> {
  const config = options.config ?? (await testConfig());
  const table = options.table ?? new JobTable(config);
  const id = `test_${process.pid}_${++counter}`;
  table.start({ id, type, params: jobTypes[type].params.parse(params) as never });
  const progress: number[] = [];
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  let state = table.get(id)!;
  while (state.state === "running") {
    if (Date.now() > deadline) throw new Error(`job ${id} still running after ${options.deadlineMs ?? 60_000} ms`);
    progress.push(state.progress);
    await new Promise((resolve) => setTimeout(resolve, 20));
    state = table.get(id)!;
  }
  progress.push(state.progress);
  const outputPath = (name: string) => {
    const output = table.output(id, name);
    if (!output) throw new Error(`no output named ${name}`);
    return output.path;
  };
  return { state, progress, table, steps: table.steps(id), outputPath, output: (name) => readFile(outputPath(name)) };
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Polls `check` (synchronous, every 20 ms) until it returns a value; fails after `deadlineMs`. */
export async function until<T>(check: () => T | undefined, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * How much a picture (or the `region` of it) varies: the largest standard deviation among
 * its colour channels, alpha aside. Flat grey is about 0, a square of noise tens.
 */
export async function detail(image: Buffer | Promise<Buffer>, region?: { left: number; top: number; width: number; height: number }): Promise<number> {
  const picture = region ? await sharp(await image).extract(region).toBuffer() : await image;
  const { channels } = await sharp(picture).removeAlpha().stats();
  return Math.max(...channels.map((c) => c.stdev));
}

export { writeFile };

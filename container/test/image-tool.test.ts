// The image tool (tools/image-process.ts, tools/image-worker.ts): sharp never parses a user's
// file inside the processor. It runs in a process of the attempt's own, under its uid and
// limits, with only the loaders of the accepted formats; files of other types are refused by
// their bytes, a crash or a runaway decode fails the job with a specific code.
import { globSync, readdirSync, readFileSync } from "node:fs";
import { chmod, lstat, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import realSharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../src/config.ts";
import { ToolIdentities, withIdentity, type ToolLease } from "../src/isolation.ts";
import { JobTable } from "../src/jobs.ts";
import { sharp, startReadyImageTools, stopReadyImageTools } from "../src/tools/image-process.ts";
import { mediaForTests, runJob, startMediaServer, testConfig, until } from "./helpers.ts";

const red = () => realSharp({ create: { width: 64, height: 48, channels: 3, background: "red" } }).png().toBuffer();

/** The image tools running now: pid, real uid, environment names, TMPDIR, CPU limit. */
function imageTools(): { pid: number; uid: number; env: string[]; tmp: string; cpuLimit: string }[] {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes("image-worker.ts") || cmdline.startsWith("setpriv") || cmdline.startsWith("prlimit")) continue;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").filter(Boolean);
      const env = environ.map((line) => line.split("=")[0]!);
      const tmp = environ.find((line) => line.startsWith("TMPDIR="))?.slice("TMPDIR=".length) ?? "";
      const cpuLimit = /^Max cpu time\s+(\S+)/m.exec(readFileSync(`/proc/${entry}/limits`, "utf8"))?.[1] ?? "";
      found.push({ pid: Number(entry), uid, env: env.sort(), tmp, cpuLimit });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe("sharp runs in the attempt's image tool", () => {
  let config: Config;
  let identities: ToolIdentities;
  let a: ToolLease;
  let b: ToolLease;

  beforeAll(async () => {
    config = await testConfig({ TOOL_MAX_CPU_S: "2" });
    expect(new JobTable(config).isolation).toEqual({ on: true });
    // As the job table makes it: tools pass through to their own directory (jobs.ts).
    await chmod(config.workDir, 0o711);
    identities = new ToolIdentities(config);
    a = await identities.acquire();
    b = await identities.acquire();
    await a.prepare(join(config.workDir, "a.1"));
    await b.prepare(join(config.workDir, "b.1"));
    await writeFile(join(config.workDir, "a.1", "input"), await red(), { mode: 0o644 });
    await writeFile(join(config.workDir, "b.1", "input"), await red(), { mode: 0o644 });
  });

  afterAll(async () => {
    await a.release();
    await b.release();
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("under the attempt's uid and CPU limit, with a tool's environment and none of the processor's", async () => {
    const meta = await withIdentity(a.identity, () => sharp(join(config.workDir, "a.1", "input")).metadata());
    expect(meta).toMatchObject({ format: "png", width: 64, height: 48 });
    const tool = imageTools().find((t) => t.uid === a.identity.uid);
    expect(tool).toMatchObject({ uid: a.identity.uid, cpuLimit: "2" });
    expect(tool!.env).toEqual(["HOME", "LC_ALL", "NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE", "PATH", "TEMP", "TMP", "TMPDIR"]);
    // One per attempt: a second request is answered by the same process.
    await withIdentity(a.identity, () => sharp(join(config.workDir, "a.1", "input")).metadata());
    expect(imageTools().filter((t) => t.uid === a.identity.uid)).toHaveLength(1);
  });

  it("cannot open another attempt's input, which the processor itself could read", async () => {
    const other = join(config.workDir, "b.1", "input");
    expect((await realSharp(other).metadata()).format).toBe("png");
    await expect(withIdentity(a.identity, () => sharp(other).metadata())).rejects.toThrow(/permission denied|missing|unable to open/i);
    await expect(withIdentity(a.identity, () => sharp(other).toFile(join(a.identity.home, "copy.png")))).rejects.toThrow();
  });

  it("writes its files as the attempt's uid, and a link planted at the name is removed, never followed", async () => {
    const victim = join(config.workDir, "victim");
    await writeFile(victim, "the processor's file");
    const out = join(a.identity.home, "out.png");
    await rm(out, { force: true });
    await symlink(victim, out);
    await withIdentity(a.identity, () => sharp(join(config.workDir, "a.1", "input")).png().toFile(out));
    const stats = await lstat(out);
    expect(stats.isFile()).toBe(true);
    expect(stats.uid).toBe(a.identity.uid);
    expect(await readFile(victim, "utf8")).toBe("the processor's file");
  });

  it("a decode that runs away ends at the CPU limit with resource_limit_exceeded, and the next request gets a new tool", async () => {
    const started = Date.now();
    const heavy = withIdentity(b.identity, () => sharp({ create: { width: 6000, height: 6000, channels: 3, background: "blue" } }).blur(80).png().toBuffer());
    await expect(heavy).rejects.toMatchObject({ code: "resource_limit_exceeded", message: expect.stringMatching(/sharp was stopped: it used more than its 2 s of CPU time/) });
    expect(Date.now() - started).toBeLessThan(60_000);
    const meta = await withIdentity(b.identity, () => sharp(join(config.workDir, "b.1", "input")).metadata());
    expect(meta.format).toBe("png");
  }, 90_000);

  it("a crash of the decoder fails the request corrupt_media, not the processor", async () => {
    const pending = withIdentity(a.identity, () => sharp({ create: { width: 5000, height: 5000, channels: 3, background: "green" } }).blur(40).png().toBuffer());
    const tool = await until(() => imageTools().find((t) => t.uid === a.identity.uid), "the image tool", 10_000);
    process.kill(tool.pid, "SIGSEGV");
    await expect(pending).rejects.toMatchObject({ code: "corrupt_media", message: expect.stringMatching(/image decoder crashed/) });
  }, 60_000);
});

describe("bytes decide an image's type: only the accepted formats' decoders exist in the tool", () => {
  const fixture = mediaForTests();

  it("SVG (naming other files), PDF, PostScript, PPM, FITS and HTML sent as image/png fail unsupported_media", async () => {
    const secret = join(fixture.config.workDir, "secret.png");
    await writeFile(secret, await red());
    const hostile: [string, Buffer][] = [
      ["svg", Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="48"><image xlink:href="file://${secret}" width="64" height="48"/><text>file:///etc/passwd</text></svg>`)],
      ["pdf", Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")],
      ["ps", Buffer.from("%!PS-Adobe-3.0\n/Helvetica findfont 12 scalefont setfont 72 72 moveto (x) show showpage\n")],
      ["ppm", Buffer.concat([Buffer.from("P6\n64 48\n255\n"), Buffer.alloc(64 * 48 * 3, 200)])],
      ["fits", Buffer.from("SIMPLE  =                    T".padEnd(2880, " "))],
      ["html", Buffer.from("<!doctype html><html><body><img src=x></body></html>")],
    ];
    for (const [name, body] of hostile) {
      const job = await runJob("compressImage", { url: fixture.media.serve(`/hostile.${name}.png`, body, "image/png") }, { config: fixture.config });
      const error = (job.state as { error?: { code: string; message: string } }).error;
      expect([name, job.state.state, error?.code]).toEqual([name, "failed", "unsupported_media"]);
      expect(error?.message).toMatch({ svg: /an SVG drawing/, pdf: /a PDF document/, ps: /a PostScript/, html: /an HTML page/ }[name] ?? /not an image in a supported format/);
    }
  }, 60_000);

  it("the tool has no decoder for them: it refuses an SVG and a VIPS file, which libvips itself reads", async () => {
    const vips = join(fixture.config.workDir, "picture.v");
    await realSharp(await red()).toFile(vips);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect width="64" height="48"/></svg>');
    for (const [name, input] of [["svg", svg], ["vips", vips]] as const) {
      expect((await realSharp(input).metadata()).width).toBe(64);
      await expect(sharp(input).metadata(), name).rejects.toThrow(/unsupported image format/);
    }
  });

  it("the accepted formats still decode, each by its own loader", async () => {
    const base = realSharp({ create: { width: 40, height: 30, channels: 3, background: "teal" } });
    for (const format of ["jpeg", "png", "webp", "gif", "tiff", "avif"] as const) {
      const body = await base.clone().toFormat(format).toBuffer();
      const job = await runJob("compressImage", { url: fixture.media.serve(`/ok.${format}`, body, "application/octet-stream"), format: "png" }, { config: fixture.config });
      expect([format, job.state.state]).toEqual([format, "completed"]);
      expect((await realSharp(await job.output("image.png")).metadata()).width).toBe(40);
    }
  }, 60_000);
});

describe("ready image tools, started before their attempt", () => {
  it("a job adopts one with the uid it runs under; another starts; stopping ends those waiting", async () => {
    const media = await startMediaServer();
    const config = await testConfig();
    const table = new JobTable(config);
    try {
      // This pool's, by the directory they were started in (other processors' tools run too).
      const dir = join(config.workDir, ".ready-images");
      const tools = () => imageTools().filter((t) => t.tmp.startsWith(dir + "/"));
      await startReadyImageTools(2, dir, table.identities);
      const waiting = await until(() => (tools().length >= 2 ? tools().map((t) => t.uid) : undefined), "two ready image tools", 20_000);
      const job = await runJob("compressImage", { url: media.serve("/r.png", await red(), "image/png"), format: "webp" }, { config, table });
      expect(job.state.state).toBe("completed");
      // The output was written by the tool, as its uid: one of those that waited.
      const owner = (await lstat(job.outputPath("image.webp"))).uid;
      expect(waiting).toContain(owner);
      // Its uid was reclaimed with the attempt (its tool ended), and a new tool waits in its place.
      await until(() => (tools().length >= 2 && !tools().some((t) => t.uid === owner) ? true : undefined), "a replacement", 20_000);
      stopReadyImageTools();
      await until(() => (tools().length === 0 ? true : undefined), "the waiting tools' end", 20_000);
    } finally {
      stopReadyImageTools();
      await media.close();
      await rm(config.workDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("no code of the processor decodes an image in its own process", () => {
  it("sharp's decoding API is imported only by the image tool", async () => {
    const files = globSync("container/src/**/*.ts");
    const importers = files.filter((f) => /^import sharp\b|^import \{[^}]*\bdefault\b/m.test(readFileSync(f, "utf8")));
    // versions.ts reads sharp.versions (the library's, not a file's).
    expect(importers.sort()).toEqual(["container/src/tools/image-worker.ts", "container/src/tools/versions.ts"]);
  });
});

describe("an idle image tool", () => {
  it("holds nothing of its parent: a process that used sharp exits when its work is done", async () => {
    const { spawn } = await import("node:child_process");
    const module = new URL("../src/tools/image-process.ts", import.meta.url).pathname;
    const script = `const { sharp } = await import(${JSON.stringify(module)});
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } }).png().toBuffer();
      console.log(png.length);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    try {
      // A parent held by its idle tool never exits: the deadline fails the test.
      expect(await until(() => child.exitCode ?? undefined, "the process to exit", 15_000)).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
    expect(Number(out.trim())).toBeGreaterThan(0);
  });
});

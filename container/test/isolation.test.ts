// Attempts isolated from each other (docs/security.md, "Attempts isolated from each other"):
// two attempts run on one processor while a hostile "tool" of one of them, run through the
// processor's own spawn path under that attempt's uid (tools/spawn.ts runTool), tries to
// reach the other's files, processes and relay URL, the processor's environment, and to run
// without end; links left where the processor reads; and real jobs side by side.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http, { createServer, type Server, type ServerResponse } from "node:http";
import { chmod, link, lstat, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobTypes } from "../../src/contract/registry.ts";
import { claimFile, readToolFile, toolFileSize } from "../src/attempt-files.ts";
import { createApp } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { JobFailure } from "../src/errors.ts";
import { decideIsolation, ToolIdentities, type ToolIdentity, type ToolLease } from "../src/isolation.ts";
import { JobTable } from "../src/jobs.ts";
import { runTool } from "../src/tools/spawn.ts";
import { mediaForTests, runJob, startMediaServer, testConfig, until, type MediaServer } from "./helpers.ts";

const never = new AbortController().signal;

/** A small H.264 MP4 of `seconds`, made with ffmpeg's test source. */
async function writeTestVideo(path: string, { seconds }: { seconds: number }): Promise<void> {
  execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=s=320x180:r=25:d=${seconds}`, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4", path]);
}

/** Runs `script` with sh as the attempt's tool would run: through runTool, under `identity`. */
async function asTool(identity: ToolIdentity, script: string, timeoutMs = 20_000) {
  return runTool("sh", ["-c", script], { signal: never, timeoutMs, identity });
}

/** An origin that sends the first bytes of a file and holds the rest until `release`: its job stays running. */
async function heldOrigin(): Promise<{ url(path: string): string; serve(path: string, body: Buffer): void; release(): void; close(): Promise<void> }> {
  const bodies = new Map<string, Buffer>();
  const held: [ServerResponse, Buffer][] = [];
  let released = false;
  const server: Server = createServer((req, res) => {
    const body = bodies.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    // A whole answer (Range ignored): the job reads what came, and waits for the rest.
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    if (released) return void res.end(body);
    res.write(body.subarray(0, 64 * 1024));
    held.push([res, body.subarray(64 * 1024)]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => base + path,
    serve: (path, body) => void bodies.set(path, body),
    release: () => {
      released = true;
      for (const [res, rest] of held.splice(0)) res.end(rest);
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The uid an attempt's tools run under: its directory's group (root:<gid>, sticky, 01770). */
async function uidOf(dir: string): Promise<number> {
  const stats = await stat(dir);
  expect(stats.uid).toBe(0);
  expect(stats.mode & 0o7777).toBe(0o1770);
  return stats.gid;
}

/** The status of a GET of `url` with `proof` as its Proxy-Authorization, or "closed" when the connection was closed unanswered. */
function statusOf(url: string, proof?: string): Promise<number | "closed"> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: proof ? { "proxy-authorization": proof } : {} }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.once("error", () => resolve("closed"));
  });
}

/** The pid, uid and command line of an ffprobe whose uid `uid` accepts, once one runs. */
/** Whether `pid` was started by this test process (through any number of others): another run's tools on the machine are not this test's. */
function ours(pid: number): boolean {
  for (let at = pid, hops = 0; at > 1 && hops < 32; hops++) {
    if (at === process.pid) return true;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
      at = Number(readFileSync(`/proc/${at}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

function processOf(uid: number | ((uid: number) => boolean), like = /ffprobe/): { pid: number; uid: number; cmdline: string } | undefined {
  const accepts = typeof uid === "number" ? (u: number) => u === uid : uid;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || !ours(Number(entry))) continue;
    try {
      const real = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      if (!accepts(real)) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (like.test(cmdline)) return { pid: Number(entry), uid: real, cmdline };
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

describe("attempts isolated from each other", () => {
  let config: Config;
  let table: JobTable;
  let origin: Awaited<ReturnType<typeof heldOrigin>>;
  let dirA: string;
  let dirB: string;
  let identityA: ToolIdentity;
  let uidB: number;
  const video = join(tmpdir(), `isolation-${process.pid}.mp4`);

  beforeAll(async () => {
    config = await testConfig({ INPUT_IDLE_TIMEOUT_MS: "600000" });
    table = new JobTable(config);
    expect(table.isolation).toEqual({ on: true });
    origin = await heldOrigin();
    await writeTestVideo(video, { seconds: 2 });
    // A: an image job held in its download. B: a video job whose probe reads the input through its relay, held too.
    origin.serve("/a.jpg", await sharp({ create: { width: 64, height: 64, channels: 3, background: "red" } }).jpeg().toBuffer().then((b) => Buffer.concat([b, Buffer.alloc(100_000)])));
    origin.serve("/b.mp4", await readFile(video));
    table.start({ id: "iso_a.1", type: "compressImage", params: jobTypes.compressImage.params.parse({ url: origin.url("/a.jpg") }) as never });
    table.start({ id: "iso_b.1", type: "videoThumbnail", params: jobTypes.videoThumbnail.params.parse({ url: origin.url("/b.mp4"), timestamp: 1 }) as never });
    dirA = join(config.workDir, "iso_a.1");
    dirB = join(config.workDir, "iso_b.1");
    // Both inputs exist once each attempt has its uid and directory.
    for (let i = 0; i < 400; i++) {
      if (await Promise.all([stat(join(dirA, "input")), stat(join(dirB, "input"))]).then(() => true, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const uidA = await uidOf(dirA);
    uidB = await uidOf(dirB);
    expect(uidA).not.toBe(uidB);
    identityA = { uid: uidA, gid: uidA, home: join(dirA, "tmp"), limits: { cpuS: 2, addressSpaceBytes: 4 * 1024 ** 3, fileBytes: 1024 ** 2, processes: 64 } };
  }, 60_000);

  afterAll(async () => {
    origin.release();
    await until(() => (table.get("iso_a.1")?.state !== "running" && table.get("iso_b.1")?.state !== "running" ? true : undefined), "the held jobs' end", 60_000).catch(() => undefined);
    await table.remove("iso_a.1");
    await table.remove("iso_b.1");
    await origin.close();
    await rm(video, { force: true });
    await rm(config.workDir, { recursive: true, force: true });
  }, 90_000);

  it("a tool cannot list the work tree, nor list or read the other attempt's directory and input, nor link to them", async () => {
    const own = await asTool(identityA, `ls ${dirA}/tmp && echo own-ok`);
    expect(own.stdout).toContain("own-ok");
    for (const script of [`ls ${config.workDir}`, `ls ${dirB}`, `cat ${dirB}/input`, `head -c 10 ${dirB}/input`, `ln ${dirB}/input ${dirA}/tmp/stolen`, `ln -s ${dirB}/input ${dirA}/tmp/via-link && cat ${dirA}/tmp/via-link`]) {
      const run = await asTool(identityA, script);
      expect([script, run.code]).not.toEqual([script, 0]);
      expect(run.stderr).toMatch(/Permission denied/);
    }
  });

  it("a tool cannot read the processor's environment or its files, nor /etc/shadow", async () => {
    for (const path of [`/proc/${process.pid}/environ`, `/proc/${process.pid}/mem`, "/etc/shadow", join(tmpdir(), "media-jobs-tool-uids", String(identityA.uid))]) {
      const run = await asTool(identityA, `cat ${path} > /dev/null`);
      expect([path, run.code]).not.toEqual([path, 0]);
      expect(run.stderr).toMatch(/Permission denied/);
    }
    // Its own environment is the minimal one: nothing of the processor's.
    const env = await asTool(identityA, "env");
    expect(env.stdout.trim().split("\n").map((l) => l.split("=")[0]).sort()).toEqual(["HOME", "LC_ALL", "PATH", "PWD", "TEMP", "TMP", "TMPDIR"]);
    const ids = await asTool(identityA, "id -u; id -g; id -G");
    expect(ids.stdout.trim().split("\n")).toEqual([String(identityA.uid), String(identityA.uid), String(identityA.uid)]);
  });

  it("a tool can read the other attempt's relay URL in /proc but gets nothing through it, nor its secret, and cannot signal or trace its processes", async () => {
    const probe = await until(() => processOf(uidB), "attempt B's ffprobe", 30_000);
    const url = /http:\/\/127\.0\.0\.1:\d+\/\S+/.exec(probe.cmdline)![0];
    // Seen, as any process sees another's command line without hidepid…
    const seen = await asTool(identityA, `tr '\\0' ' ' < /proc/${probe.pid}/cmdline`);
    expect(seen.stdout).toContain(url);
    // …but the relay answers only a request proving B's secret: asked for one, then refused
    // when the proof is not B's (A's own lease's secret, or a guess, is another).
    const bare = await asTool(identityA, `curl -s -S -m 5 -o /dev/null -w '%{http_code}' '${url}'`);
    expect(bare.stdout).toBe("407");
    const port = new URL(url).port;
    const guessed = await asTool(identityA, `curl -s -S -m 5 -o /dev/null -w '%{http_code}' -x 'http://tool:${"x".repeat(24)}@127.0.0.1:${port}' '${url}'`);
    expect(guessed.code).not.toBe(0);
    expect(guessed.stdout).toBe("000");
    // B's secret is in B's tools' environment, which only B's uid reads.
    const env = (await readFile(`/proc/${probe.pid}/environ`, "latin1")).split("\0");
    const proxy = env.find((v) => v.startsWith("http_proxy="));
    expect(proxy).toMatch(new RegExp(`^http_proxy=http://tool:[\\w-]{24}@127\\.0\\.0\\.1:${port}$`));
    // With it (read here as root), the same request is answered: the refusals above are the secret's.
    const secret = /tool:([\w-]+)@/.exec(proxy!)![1]!;
    const stop = new AbortController();
    const answered = await fetch(url, { headers: { "proxy-authorization": `Basic ${Buffer.from(`tool:${secret}`).toString("base64")}`, range: "bytes=0-0" }, signal: stop.signal });
    expect(answered.status).toBe(206);
    stop.abort();
    for (const script of [`kill -0 ${probe.pid}`, `kill -9 ${probe.pid}`, `cat /proc/${probe.pid}/environ`]) {
      const run = await asTool(identityA, script);
      expect([script, run.code]).not.toEqual([script, 0]);
    }
    expect(processOf(uidB)?.pid).toBe(probe.pid);
  });

  it("a tool cannot reach the processor's API (it would start jobs there)", async () => {
    const { startProcessor } = await import("../src/server.ts");
    const processor = await startProcessor({ HOST: "127.0.0.1", PORT: "0", WORK_DIR: join(config.workDir, "api"), ISOLATION: "on", READY_PROCESSES: "0", LOG_LEVEL: "error" });
    try {
      const ours = await fetch(`http://127.0.0.1:${processor.port}/healthz`);
      expect(await ours.json()).toEqual({ ok: true, isolation: { on: true } });
      const run = await asTool(identityA, `curl -s -S -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${processor.port}/healthz`);
      expect(run.stdout).toBe("000");
    } finally {
      await processor.close();
    }
  });

  it("then both attempts complete, each with its own output, and their directories are closed to their uids", async () => {
    origin.release();
    const end = (id: string) => until(() => (table.get(id)?.state === "running" ? undefined : table.get(id)), id, 60_000);
    const [a, b] = await Promise.all([end("iso_a.1"), end("iso_b.1")]);
    expect(a).toMatchObject({ state: "completed" });
    expect(b, JSON.stringify(b)).toMatchObject({ state: "completed" });
    for (const dir of [dirA, dirB]) expect((await stat(dir)).mode & 0o7777).toBe(0o700);
    // B's output, once reclaimed, is no more A's to read than before.
    const output = table.output("iso_b.1", "thumbnail.jpg")!;
    const run = await asTool(identityA, `cat ${output.path} > /dev/null`);
    expect(run.stderr).toMatch(/Permission denied/);
  }, 90_000);
});

describe("ready processes, started before their job", () => {
  it("each runs under a uid of its own, which alone its relay path answers; a job takes them and completes", async () => {
    const config = await testConfig();
    const { startProcessor } = await import("../src/server.ts");
    const { readyCounts } = await import("../src/tools/ready-tools.ts");
    const processor = await startProcessor({ HOST: "127.0.0.1", PORT: "0", WORK_DIR: config.workDir, ALLOW_PRIVATE_NETWORK_INPUTS: "true", ISOLATION: "on", READY_PROCESSES: "1", LOG_LEVEL: "error" });
    const media = await startMediaServer();
    try {
      const inRange = (uid: number) => uid >= config.TOOL_UID_BASE && uid < config.TOOL_UID_BASE + config.TOOL_UIDS;
      // A ready probe: its URL is a random path alone (a job's names its work directory after it).
      const ready = await until(() => processOf(inRange, /ffprobe .*http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}(\s|$)/), "a ready ffprobe", 20_000);
      expect(inRange(ready.uid)).toBe(true);
      const url = /http:\/\/127\.0\.0\.1:\d+\/\S+/.exec(ready.cmdline)![0];
      // Anyone without the ready process's secret (root here, with the URL from its command
      // line) gets nothing through its route: asked for the secret, then refused with a wrong one.
      // (fetch takes any 407 for a network error: the Fetch standard's HTTP-network-or-cache fetch.)
      expect(await statusOf(url)).toBe(407);
      expect(await statusOf(url, `Basic ${Buffer.from(`tool:${"x".repeat(24)}`).toString("base64")}`)).toBe("closed");
      const video = join(config.workDir, "ready.mp4");
      await writeTestVideo(video, { seconds: 2 });
      const taken = readyCounts().taken.probes;
      const job = await runJob("videoThumbnail", { url: media.serve("/ready.mp4", await readFile(video), "video/mp4"), timestamp: 1 }, { config, table: processor.jobs });
      expect(job.state.state).toBe("completed");
      expect(readyCounts().taken.probes).toBe(taken + 1);
    } finally {
      await media.close();
      await processor.close();
      await rm(config.workDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("limits end a runaway tool with resource_limit_exceeded", () => {
  let lease: ToolLease;
  let dir: string;

  beforeAll(async () => {
    const config = await testConfig({ TOOL_MAX_CPU_S: "1", TOOL_MAX_FILE_BYTES: String(1024 ** 2) });
    dir = config.workDir;
    // As the job table makes it: tools pass through to their own directory (jobs.ts).
    await chmod(dir, 0o711);
    lease = (await new ToolIdentities(config).acquire())!;
    await lease.prepare(join(dir, "attempt"));
  });

  afterAll(async () => {
    await lease.release();
    await rm(dir, { recursive: true, force: true });
  });

  it("an endless loop ends at its CPU limit, in seconds", async () => {
    const started = Date.now();
    const run = runTool("sh", ["-c", "while :; do :; done"], { signal: never, timeoutMs: 60_000, identity: lease.identity });
    await expect(run).rejects.toMatchObject({ code: "resource_limit_exceeded", message: expect.stringMatching(/sh was stopped: it used more than its 1 s of CPU time/) });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("a file past the size limit ends its writer", async () => {
    const run = runTool("sh", ["-c", `exec head -c 2000000 /dev/zero > ${lease.identity.home}/big`], { signal: never, timeoutMs: 60_000, identity: lease.identity });
    await expect(run).rejects.toMatchObject({ code: "resource_limit_exceeded", message: expect.stringMatching(/larger than the processor allows \(1 MiB\)/) });
  });

  it("what a tool leaves in /tmp, /var/tmp or /dev/shm is removed before its uid is handed out again", async () => {
    const config = await testConfig();
    const other = (await new ToolIdentities(config).acquire())!;
    const left = [join("/tmp", `left-by-${other.identity.uid}`), join("/dev/shm", `left-by-${other.identity.uid}`)];
    const run = await runTool("sh", ["-c", `mkdir ${left[0]} && echo x > ${left[0]}/f && echo y > ${left[1]}`], { signal: never, timeoutMs: 10_000, identity: { ...other.identity, home: "/tmp" } });
    expect(run.code).toBe(0);
    await other.release();
    await other.reclaimed;
    for (const path of left) await expect(lstat(path)).rejects.toMatchObject({ code: "ENOENT" });
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("a uid marked held by a processor that died is taken over, its processes killed first", async () => {
    const config = await testConfig({ TOOL_UID_BASE: "62000", TOOL_UIDS: "2", READY_PROCESSES: "0" });
    const locks = join(tmpdir(), "media-jobs-tool-uids");
    await mkdir(locks, { recursive: true, mode: 0o700 });
    const dead = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
    await writeFile(join(locks, "62000"), String(dead));
    await writeFile(join(locks, "62001"), String(process.pid));
    try {
      const leftover = await runTool("sh", ["-c", "setsid sleep 300 >/dev/null 2>&1 & exit 0"], { signal: never, timeoutMs: 5_000, identity: { uid: 62000, gid: 62000, home: "/tmp", limits: lease.identity.limits } });
      expect(leftover.code).toBe(0);
      const taken = await new ToolIdentities(config).acquire();
      expect(taken.identity.uid).toBe(62000);
      expect(await readFile(join(locks, "62000"), "utf8")).toBe(String(process.pid));
      await until(() => (execFileSync("sh", ["-c", "ps -u 62000 -o stat= | grep -vc '^Z' || true"], { encoding: "utf8" }).trim() === "0" ? true : undefined), "the dead holder's sleeper killed", 5_000);
      await taken.release();
      await taken.reclaimed;
    } finally {
      await rm(join(locks, "62001"), { force: true });
      await rm(config.workDir, { recursive: true, force: true });
    }
  });

  it("a fork bomb is capped by its process limit, and nothing of the uid outlives its release", async () => {
    const identity = { ...lease.identity, limits: { ...lease.identity.limits, processes: 20 } };
    // Its children leave its process group (setsid), holding its stdout: the run still ends once the tool has.
    const started = Date.now();
    const run = await runTool("sh", ["-c", "for i in $(seq 40); do setsid sleep 300 & done; exit 0"], { signal: never, timeoutMs: 20_000, identity });
    expect(run.stderr).toMatch(/fork/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Zombies aside: those are gone once their new parent reaps them.
    const count = () => Number(execFileSync("sh", ["-c", `ps -u ${identity.uid} -o stat= | grep -vc '^Z' || true`], { encoding: "utf8" }).trim());
    expect(count()).toBeGreaterThan(0);
    expect(count()).toBeLessThanOrEqual(20);
    const { killAll } = await import("../src/isolation.ts");
    await killAll(identity.uid);
    await until(() => (count() === 0 ? true : undefined), "no process of the uid", 5_000);
  });
});

describe("what a tool leaves where the processor reads or writes", () => {
  let dir: string;
  let lease: ToolLease;

  beforeAll(async () => {
    const config = await testConfig();
    await chmod(config.workDir, 0o711);
    dir = join(config.workDir, "attempt");
    lease = (await new ToolIdentities(config).acquire())!;
    await lease.prepare(dir);
  });

  afterAll(async () => {
    await lease.release();
    await rm(dir, { recursive: true, force: true });
  });

  it("a symlink to /etc/shadow or to another attempt's file, a hard link, a FIFO: never read, never counted as an output", async () => {
    const other = join(dir, "..", "other-input");
    await writeFile(other, "another attempt's bytes");
    const { identity } = lease;
    const run = await asTool(identity, `cd ${dir} && ln -s /etc/shadow shadow.png && ln -s ${other} other.png && mkfifo fifo.png && echo ok > own.png`);
    expect(run.code).toBe(0);
    // The tool may hard-link only what it owns (protected_hardlinks): the processor refuses a second name all the same.
    await link(join(dir, "own.png"), join(dir, "twice.png"));
    for (const name of ["shadow.png", "other.png", "fifo.png", "twice.png"]) {
      await expect(readToolFile(join(dir, name)), name).rejects.toBeInstanceOf(JobFailure);
      await expect(toolFileSize(join(dir, name), identity.uid), name).rejects.toBeInstanceOf(JobFailure);
    }
    await rm(join(dir, "twice.png"));
    expect((await readToolFile(join(dir, "own.png"))).toString()).toBe("ok\n");
    expect(await toolFileSize(join(dir, "own.png"), identity.uid)).toBe(3);
    // A file of another uid (root's aside) is not this attempt's output.
    await expect(toolFileSize(join(dir, "own.png"), identity.uid + 1)).rejects.toBeInstanceOf(JobFailure);
  });

  it("a name the processor writes is claimed: a planted symlink is replaced, never followed, and then cannot be replaced again", async () => {
    const target = join(dir, "..", "not-to-be-written");
    await writeFile(target, "unchanged");
    const run = await asTool(lease.identity, `ln -s ${target} ${dir}/image.jpg`);
    expect(run.code).toBe(0);
    await claimFile(join(dir, "image.jpg"));
    await writeFile(join(dir, "image.jpg"), "the processor's");
    expect(await readFile(target, "utf8")).toBe("unchanged");
    expect((await lstat(join(dir, "image.jpg"))).isSymbolicLink()).toBe(false);
    // Root's name in a sticky directory: the tool can neither remove nor rename it.
    const swap = await asTool(lease.identity, `rm -f ${dir}/image.jpg; mv ${dir}/image.jpg ${dir}/x.jpg`);
    expect(swap.stderr).toMatch(/Operation not permitted/);
    expect(await readFile(join(dir, "image.jpg"), "utf8")).toBe("the processor's");
  });
});

describe("hostile inputs on an isolated processor", () => {
  const fixture = mediaForTests();

  it("a decompression bomb (a 30000×30000 PNG in a hundred bytes) fails input_too_large before it is decoded", async () => {
    const chunk = (type: string, data: Buffer) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(data.length);
      head.write(type, 4, "latin1");
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "latin1"), data])));
      return Buffer.concat([head, data, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(30_000, 0);
    ihdr.writeUInt32BE(30_000, 4);
    ihdr.set([1, 0, 0, 0, 0], 8);
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(Buffer.alloc(30_000 * 3751).subarray(0, 1 << 20))), chunk("IEND", Buffer.alloc(0))]);
    expect(png.length).toBeLessThan(4096);
    const started = Date.now();
    const job = await runJob("compressImage", { url: fixture.media.serve("/bomb.png", png, "image/png") }, { config: fixture.config });
    expect(job.state).toMatchObject({ state: "failed", error: { code: "input_too_large" } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("an HLS playlist or a concat list naming another attempt's input by file: is refused, and reads nothing", async () => {
    const other = join(fixture.config.workDir, "other.1");
    await mkdir(other, { recursive: true });
    await writeTestVideo(join(other, "input"), { seconds: 1 });
    const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://${other}/input\n#EXT-X-ENDLIST\n`;
    const concat = `ffconcat version 1.0\nfile '${other}/input'\n`;
    for (const [name, body] of [["list.m3u8", playlist], ["list.ffconcat", concat]] as const) {
      const job = await runJob("videoThumbnail", { url: fixture.media.serve(`/${name}`, body), timestamp: 0 }, { config: fixture.config });
      expect([name, job.state.state]).toEqual([name, "failed"]);
      expect((job.state as { error: { code: string } }).error.code).toBe("unsupported_media");
    }
  });

  it("real jobs complete side by side, each under its own uid", async () => {
    const table = new JobTable(fixture.config);
    const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: "blue" } }).jpeg().toBuffer();
    const videoPath = join(fixture.config.workDir, "side.mp4");
    await writeTestVideo(videoPath, { seconds: 2 });
    const [a, b] = await Promise.all([
      runJob("compressImage", { url: fixture.media.serve("/side.jpg", image, "image/jpeg"), format: "webp" }, { config: fixture.config, table }),
      runJob("videoThumbnail", { url: fixture.media.serve("/side.mp4", await readFile(videoPath), "video/mp4"), timestamp: 1 }, { config: fixture.config, table }),
    ]);
    expect(a.state.state).toBe("completed");
    expect(b.state.state).toBe("completed");
    expect((await sharp(await a.output("image.webp")).metadata()).format).toBe("webp");
    expect((await sharp(await b.output("thumbnail.jpg")).metadata()).format).toBe("jpeg");
    const gids = await Promise.all([a.outputPath("image.webp"), b.outputPath("thumbnail.jpg")].map(async (p) => (await stat(join(p, "..", ".."))).gid));
    expect(gids[0]).not.toBe(gids[1]);
    expect(gids.every((g) => g >= fixture.config.TOOL_UID_BASE && g < fixture.config.TOOL_UID_BASE + fixture.config.TOOL_UIDS)).toBe(true);
  }, 60_000);
});

describe("where tools cannot be isolated", () => {
  it("ISOLATION=auto turns it off and says why; ISOLATION=on refuses to start; /healthz and /status say so", async () => {
    const closed = await mkdtemp(join(tmpdir(), "media-jobs-closed-"));
    await chmod(closed, 0o700);
    try {
      const config = loadConfig({ WORK_DIR: join(closed, "work"), ISOLATION: "auto" }, tmpdir());
      expect(decideIsolation(config)).toEqual({ on: false, reason: expect.stringMatching(/tools cannot pass through .*media-jobs-closed-.* \(mode 700\)/) });
      expect(() => decideIsolation({ ...config, ISOLATION: "on" })).toThrow(/ISOLATION=on, but tools cannot be isolated here: tools cannot pass through/);
      expect(decideIsolation({ ...config, ISOLATION: "off" })).toEqual({ on: false, reason: "ISOLATION=off" });
      // A checkout in a closed directory: the image tool's Node would not start under a pool uid.
      const open = loadConfig({ ISOLATION: "on" }, tmpdir());
      expect(() => decideIsolation(open, { "the image tool's Node": join(closed, "node_modules/node/bin/node") })).toThrow(
        /tools cannot pass through .*media-jobs-closed-.* \(mode 700\) to the image tool's Node .*chmod o\+x/,
      );
      const app = createApp(config, new JobTable(config));
      const health = await (await app.request("/healthz")).json();
      expect(health).toEqual({ ok: true, isolation: { on: false, reason: expect.stringMatching(/cannot pass through/) } });
      const status = await (await app.request("/status")).json();
      expect(status.isolation).toEqual(health.isolation);
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });
});

/** CRC-32 (PNG chunks). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

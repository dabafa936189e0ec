// A tool never outlives the processor that started it: kill -9 the processor mid-job and
// the ffmpeg it was running is gone too (tools run under setpriv --pdeathsig SIGKILL).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { processesMentioning } from "../../test/support/processes.ts";
import { startMediaServer, testConfig } from "./helpers.ts";

const exec = promisify(execFile);

async function until<T>(probe: () => Promise<T | undefined>, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(process.platform === "linux")("a processor killed with SIGKILL", () => {
  let processor: ChildProcess | undefined;
  afterAll(() => {
    processor?.kill("SIGKILL");
  });

  it("leaves no ffmpeg behind", async () => {
    const config = await testConfig();
    const media = await startMediaServer();
    const video = join(config.workDir, "long.mp4");
    // 60 s of 720p: minutes of VP9 at "high", so the encode is surely running when we kill.
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=60", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", video]);
    const url = media.serve("/long.mp4", await readFile(video), "video/mp4");

    processor = spawn(process.execPath, ["container/src/server.ts"], {
      env: { ...process.env, PORT: "0", WORK_DIR: config.workDir, ALLOW_PRIVATE_NETWORK_INPUTS: "true", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    processor.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const port = await until(async () => /"port":(\d+)/.exec(out)?.[1], "the processor to listen");
    const started = await fetch(`http://127.0.0.1:${port}/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "orphan-test", type: "compressVideo", params: { url, codec: "vp9", quality: "high" } }),
    });
    expect(started.status).toBe(202);

    // The job's own work directory is on the encoder's command line.
    const jobDir = join(config.workDir, "orphan-test");
    const tools = await until(async () => {
      const found = (await processesMentioning(jobDir)).filter((p) => /\bffmpeg\b/.test(p.cmd));
      return found.some((p) => p.cmd.includes("libvpx-vp9")) ? found : undefined;
    }, "the VP9 encode to start");
    expect(tools.length).toBeGreaterThan(0);

    processor.kill("SIGKILL");
    const left = await until(async () => {
      const alive = await processesMentioning(jobDir);
      return alive.length === 0 ? alive : undefined;
    }, "the processor's tools to die", 10_000).catch(async () => processesMentioning(jobDir));
    // Even when this fails, leave nothing running.
    for (const { pid } of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);

    await media.close();
    await rm(config.workDir, { recursive: true, force: true });
  });
});

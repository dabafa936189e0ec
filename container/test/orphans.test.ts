// A tool never outlives the processor that started it: kill -9 the processor mid-job and
// the ffmpeg it was running is gone too (tools run under setpriv --pdeathsig SIGKILL).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { startMediaServer, testConfig } from "./helpers.ts";
import { until } from "./video-fixtures.ts";

const exec = promisify(execFile);

describe.runIf(process.platform === "linux")("a processor killed with SIGKILL", () => {
  let processor: ChildProcess | undefined;
  afterAll(() => {
    processor?.kill("SIGKILL");
  });

  it("leaves no ffmpeg behind", async () => {
    const config = await testConfig();
    const media = await startMediaServer();
    const video = join(config.workDir, "long.mp4");
    // 30 s of 640×360: quick to make, and far longer to encode in VP9 at "high" than it takes to see the encoder start.
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=30", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", video]);
    const url = media.serve("/long.mp4", await readFile(video), "video/mp4");

    processor = spawn(process.execPath, ["container/src/server.ts"], {
      env: { ...process.env, PORT: "0", WORK_DIR: config.workDir, ALLOW_PRIVATE_NETWORK_INPUTS: "true", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    processor.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    await until(() => /"port":\d+/.test(out), 30_000, "the processor to listen");
    const port = /"port":(\d+)/.exec(out)![1];
    const started = await fetch(`http://127.0.0.1:${port}/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) },
      // Protocol 2 names a callback; nothing listens there (events fail, the encode runs on).
      body: JSON.stringify({
        id: "orphan-test",
        type: "compressVideo",
        params: { url, codec: "vp9", quality: "high" },
        callback: { url: "http://127.0.0.1:9/internal/processor-events", token: "o".repeat(43), outputs: "http://127.0.0.1:9/internal/processor-outputs/orphan-test" },
      }),
    });
    expect(started.status).toBe(202);

    // The job's own work directory is on the encoder's command line.
    const jobDir = join(config.workDir, "orphan-test");
    const encoding = async () => (await processesMentioning(jobDir)).some((p) => /\bffmpeg\b.*libvpx-vp9/.test(p.cmd));
    await until(encoding, 30_000, "the VP9 encode to start");

    processor.kill("SIGKILL");
    await until(async () => (await processesMentioning(jobDir)).length === 0, 10_000, "the processor's tools to die").catch(() => undefined);
    const left = await processesMentioning(jobDir);
    // Even when this fails, leave nothing running.
    for (const { pid } of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);

    await media.close();
    await rm(config.workDir, { recursive: true, force: true });
  }, 180_000);
});

/// <reference lib="dom" />
// A completed video-adaptive job's dashboard page plays its stream in headless Chromium:
// hls.js (served by the Worker under the page's CSP) parses the master playlist through the
// signed folder link, loads fragments, and the <video> decodes and plays (readyState ≥ 2,
// currentTime advancing). Against the whole service (wrangler dev + processor); the input
// is a 4-second 640×360 clip served by this file.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, poll } from "../support/e2e-helpers.ts";

const exec = promisify(execFile);

const service = inject("service");
let browser: Browser;
let page: Page;
let server: Server;
let work: string;
let clipUrl: string;
const member = { org: `adaptive-${Date.now().toString(36)}`, email: `adaptive-${Date.now().toString(36)}@example.com`, password: "" };


beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "media-jobs-adaptive-e2e-"));
  const file = join(work, "clip.mp4");
  await exec("ffmpeg", [
    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=4", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=4",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-movflags", "+faststart", file,
  ]);
  const clip = await readFile(file);
  server = createServer((_, res) => res.writeHead(200, { "content-type": "video/mp4", "content-length": clip.length }).end(clip));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  clipUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;

  const res = await fetch(`${service.baseUrl}/admin/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ org: member.org, email: member.email }),
  });
  expect(res.status).toBe(201);
  member.password = ((await res.json()) as { password: string }).password;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await browser?.close();
  await rm(work, { recursive: true, force: true });
});

/** How long the page or the player may take at each step: only a bound on the wait, so generous on a loaded machine (decoding in software). */
const PLAYER_MS = 45_000;
/** The test's timeout: the job's run (poll's 45 s) and five waits of PLAYER_MS, with room to spare. */
const TEST_MS = 360_000;

describe("a video-adaptive job's dashboard page", () => {
  it("plays the stream with hls.js: manifest parsed, fragments loaded, the video decoding and playing", async () => {
    const keyRes = await fetch(`${service.baseUrl}/admin/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ org: member.org, mode: "live" }),
    });
    expect(keyRes.status).toBe(201);
    const { key } = (await keyRes.json()) as { key: string };
    const created = await fetch(`${service.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "video-adaptive", input: clipUrl, options: { segmentDuration: 2 } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const job = await poll(async () => {
      const res = await fetch(`${service.baseUrl}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { status: string; result?: { renditions: unknown[] } };
      return ["completed", "failed", "cancelled"].includes(body.status) ? body : undefined;
    }, "the job to end");
    expect(job).toMatchObject({ status: "completed" });
    expect(job.result!.renditions).toHaveLength(2);

    await page.goto(`${service.baseUrl}/dashboard/sign-in`);
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(member.password);
    await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Sign in" }).click()]);
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`${service.baseUrl}/dashboard/jobs/${id}`);
    const video = page.locator("video[data-hls-src]");
    await video.waitFor({ state: "attached", timeout: PLAYER_MS });

    // Debian's Chromium has H.264 and AAC in Media Source Extensions, which hls.js feeds.
    const codecs = await page.evaluate(() => MediaSource.isTypeSupported('video/mp4; codecs="avc1.64001e,mp4a.40.2"'));
    expect(codecs).toBe(true);
    await poll(async () => ((await video.getAttribute("data-hls-state")) === "parsed" || (await video.getAttribute("data-hls-state")) === "playing" ? true : undefined), "hls.js to parse the master playlist", PLAYER_MS);
    expect(await video.getAttribute("data-hls-levels")).toBe("2");
    await poll(async () => (Number(await video.getAttribute("data-hls-fragments")) >= 1 ? true : undefined), "hls.js to load a fragment", PLAYER_MS);

    await video.evaluate((v: HTMLVideoElement) => void v.play());
    const first = await poll(async () => {
      const s = await video.evaluate((v: HTMLVideoElement) => ({ readyState: v.readyState, time: v.currentTime, width: v.videoWidth }));
      return s.readyState >= 2 && s.time > 0 ? s : undefined;
    }, "the video to decode and play", PLAYER_MS);
    await poll(async () => ((await video.evaluate((v: HTMLVideoElement) => v.currentTime)) > first.time ? true : undefined), "currentTime to advance", PLAYER_MS);
    expect([320, 426, 640]).toContain(first.width);
    expect(await video.getAttribute("data-hls-state")).toBe("playing");
    expect(errors.filter((e) => /Content Security Policy|Refused/.test(e))).toEqual([]);
  }, TEST_MS);
});

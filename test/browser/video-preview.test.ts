/// <reference lib="dom" />
// video-preview on the dashboard's job page, in a real headless Chromium against the whole
// service: an animated WebP and a GIF show as images the browser decodes at the result's
// width, and an MP4 as a muted, looping <video> that plays. Screenshots go to
// test-output/screenshots/.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, poll } from "../support/e2e-helpers.ts";

const shots = resolve(dirname(fileURLToPath(import.meta.url)), "../../test-output/screenshots");

const service = inject("service");
const member = { email: `preview-${Date.now().toString(36)}@example.com`, password: "" };
let browser: Browser;
let page: Page;
let key: string;
let videoUrl: string;
let server: Server;


/** Creates a preview job with the key and waits, through the API, for it to complete; its result. */
async function completedPreview(options: Record<string, unknown>): Promise<{ id: string; result: { width: number; height: number; format: string } }> {
  const created = await fetch(`${service.baseUrl}/v1/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ type: "video-preview", input: videoUrl, options }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  return poll(async () => {
    const job = (await (await fetch(`${service.baseUrl}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; result: never; error?: unknown };
    if (job.status === "failed") throw new Error(`job failed: ${JSON.stringify(job.error)}`);
    return job.status === "completed" ? { id, result: job.result } : undefined;
  }, `job ${id} to complete`);
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  // The input: a 3 s 320×180 clip served from here (the processor may read private addresses in tests).
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-browser-"));
  const file = join(dir, "clip.mp4");
  await promisify(execFile)("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
  const clip = await readFile(file);
  await rm(dir, { recursive: true, force: true });
  server = createServer((_, res) => res.writeHead(200, { "content-type": "video/mp4", "content-length": clip.length }).end(clip));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  videoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;

  const org = `preview-${Date.now().toString(36)}`;
  const admin = { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" };
  const user = await fetch(`${service.baseUrl}/admin/users`, { method: "POST", headers: admin, body: JSON.stringify({ org, email: member.email }) });
  expect(user.status).toBe(201);
  member.password = ((await user.json()) as { password: string }).password;
  const created = await fetch(`${service.baseUrl}/admin/keys`, { method: "POST", headers: admin, body: JSON.stringify({ org, mode: "live" }) });
  expect(created.status).toBe(201);
  key = ((await created.json()) as { key: string }).key;

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${service.baseUrl}/dashboard/sign-in`);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Password").fill(member.password);
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Sign in" }).click()]);
  expect(new URL(page.url()).pathname).toBe("/dashboard/jobs");
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await browser?.close();
});

/** How long an element, an image or playback may take: only a bound on the wait, so generous on a loaded machine. */
const ELEMENT_MS = 30_000;
/** Each test's timeout: the job's run (poll's 45 s) and two waits of ELEMENT_MS, with room to spare. */
const TEST_MS = 180_000;

describe("a video preview on the job page", () => {
  it.each([
    ["an animated WebP", { format: "webp", width: 240, fps: 8, duration: 2 }],
    ["a GIF", { format: "gif", width: 200, fps: 6, duration: 2 }],
  ])("shows %s as an image the browser decodes at the result's width", async (_, options) => {
    const { id, result } = await completedPreview(options);
    expect(result.width).toBe(options.width);
    await page.goto(`${service.baseUrl}/dashboard/jobs/${id}`);
    const preview = page.getByRole("img", { name: "Output preview" });
    await preview.first().waitFor({ state: "visible", timeout: ELEMENT_MS });
    // The signed link really serves the animation: the browser decoded it.
    const natural = await poll(async () => (await preview.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))) || undefined, "the preview to load", ELEMENT_MS);
    expect(natural).toBe(result.width);
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalHeight)).toBe(result.height);
    await page.screenshot({ path: join(shots, `job-video-preview-${options.format}.png`), fullPage: true });
  }, TEST_MS);

  it("shows an MP4 as a muted, looping video that plays", async () => {
    const { id, result } = await completedPreview({ format: "mp4", width: 160, duration: 2 });
    await page.goto(`${service.baseUrl}/dashboard/jobs/${id}`);
    const video = page.locator("video").first();
    await video.waitFor({ state: "visible", timeout: ELEMENT_MS });
    expect(await video.evaluate((v: HTMLVideoElement) => [v.muted, v.loop])).toEqual([true, true]);
    // Muted video may play without a gesture: it plays, so the browser fetched and decoded it.
    await video.evaluate((v: HTMLVideoElement) => v.play());
    const size = await poll(async () => (await video.evaluate((v: HTMLVideoElement) => (v.currentTime > 0 ? [v.videoWidth, v.videoHeight] : null))) ?? undefined, "the video to play", ELEMENT_MS);
    expect(size).toEqual([result.width, result.height]);
    await page.screenshot({ path: join(shots, "job-video-preview-mp4.png"), fullPage: true });
  }, TEST_MS);
});

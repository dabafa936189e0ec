/// <reference lib="dom" />
// A completed video-storyboard job on the dashboard's job page, in a real headless Chromium
// against the whole service: the sprite's preview loads through its signed link, and the
// scrubber shows the tile of the cue under the pointer (and under the arrow keys), under
// the page's CSP (no error in the console). Screenshot in test-output/screenshots/.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
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
const exec = promisify(execFile);

const service = inject("service");
const org = `storyboard-${Date.now().toString(36)}`;
const member = { email: `${org}@example.com`, password: "" };
let key = "";
let browser: Browser;
let page: Page;
let media: Server;
let videoUrl = "";
const consoleErrors: string[] = [];

async function admin(path: string, body: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json() as Promise<Record<string, string>>;
}


beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  // A 6 s 320×180 test pattern (its timer changes every frame), served to the processor.
  const file = join(tmpdir(), `media-jobs-storyboard-${process.pid}.mp4`);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
  const video = await readFile(file);
  await rm(file, { force: true });
  media = createServer((_req, res) => void res.writeHead(200, { "content-type": "video/mp4", "content-length": video.length }).end(video));
  await new Promise<void>((done) => media.listen(0, "127.0.0.1", done));
  videoUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}/pattern.mp4`;

  member.password = (await admin("/admin/users", { org, email: member.email })).password!;
  key = (await admin("/admin/keys", { org, mode: "live" })).key!;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on("console", (message) => void (message.type() === "error" && consoleErrors.push(message.text())));
  await page.goto(`${service.baseUrl}/dashboard/sign-in`);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Password").fill(member.password);
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Sign in" }).click()]);
});

afterAll(async () => {
  media?.closeAllConnections();
  media?.close();
  await browser?.close();
});

/** How long an element, an image or the scrubber's change may take: only a bound on the wait, so generous on a loaded machine. */
const ELEMENT_MS = 30_000;
/** The test's timeout: the job's run (poll's 45 s) and five waits of ELEMENT_MS, with room to spare. */
const TEST_MS = 300_000;

describe("a storyboard on the job page", () => {
  it("shows the sprite and a scrubber that follows the pointer", async () => {
    const created = await fetch(`${service.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "video-storyboard", input: videoUrl, options: { interval: 1, width: 96, columns: 3 } }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const id = ((await created.json()) as { id: string }).id;

    await poll(async () => {
      await page.goto(`${service.baseUrl}/dashboard/jobs/${id}`);
      const status = await page.locator(".badge").first().textContent();
      if (status === "failed") throw new Error(`job failed: ${await page.locator("main").innerText()}`);
      return status === "completed" ? true : undefined;
    }, "the job to complete");

    // The sprite: 6 tiles of 96×54 in 3 columns, decoded by the browser through its signed link.
    const sprite = page.getByRole("img", { name: "Sprite preview" });
    await sprite.waitFor({ state: "visible", timeout: ELEMENT_MS });
    await poll(async () => (await sprite.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)) || undefined, "the sprite to load", ELEMENT_MS);
    expect(await sprite.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([288, 108]);

    // The scrubber: one tile's box, the sprite as its background, the first tile shown.
    const scrubber = page.getByRole("slider", { name: /Storyboard/ });
    await scrubber.waitFor({ state: "visible", timeout: ELEMENT_MS });
    const style = () => scrubber.evaluate((el: HTMLElement) => ({ position: el.style.backgroundPosition, image: el.style.backgroundImage, width: el.getBoundingClientRect().width }));
    const first = await style();
    expect(first).toMatchObject({ position: "0px 0px", width: 96 + 2 }); // a 1 px border each side
    expect(first.image).toContain("/sprite.jpg");
    const caption = page.locator("[data-storyboard-time]");
    expect(await caption.innerText()).toBe("Tile 1 of 6: 0:00 to 0:01");

    // The pointer at 75 % of the box is 4.5 s into the video: cue 5 (4 s to 5 s), tile (1, 1).
    await scrubber.scrollIntoViewIfNeeded();
    const box = (await scrubber.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2);
    await poll(async () => ((await style()).position === "-96px -54px" ? true : undefined), "the scrubber to show tile 5", ELEMENT_MS);
    expect(await caption.innerText()).toBe("Tile 5 of 6: 0:04 to 0:05");
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    await poll(async () => ((await style()).position === "-192px -54px" ? true : undefined), "the scrubber to show the last tile", ELEMENT_MS);

    // The keyboard steps through the cues as well.
    await scrubber.focus();
    await page.keyboard.press("ArrowLeft");
    expect((await style()).position).toBe("-96px -54px");
    expect(await scrubber.getAttribute("aria-valuenow")).toBe("4");
    await page.screenshot({ path: join(shots, "job-storyboard.png"), fullPage: true });

    // At a phone's width the page still does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    await page.screenshot({ path: join(shots, "job-storyboard-phone.png"), fullPage: true });
    expect(consoleErrors).toEqual([]);
  }, TEST_MS);
});

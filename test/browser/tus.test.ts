/// <reference lib="dom" />
// A browser upload in a real headless Chromium, against the whole service (wrangler dev +
// processor): a page on its own origin gets an upload token from its backend (which holds
// the API key), picks a file and sends it with tus-js-client's browser build, cross-origin
// (CORS preflights, Location and Upload-Offset read from the answers); the API key never
// reaches the browser, and a job runs on what it sent.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, poll, serviceKey } from "../support/e2e-helpers.ts";

const TUS_BUILD = resolve(dirname(fileURLToPath(import.meta.url)), "../../node_modules/tus-js-client/dist/tus.min.js");

// The whole service, started once for the e2e project (test/support/e2e-setup.ts).
const service = inject("service");
let browser: Browser;
let key: string;
let pageUrl: string;
const servers: Server[] = [];

/** The page: a file input whose file goes up over tus with a token from the page's own backend. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>Upload</title>
<script src="/tus.min.js"></script>
<input type="file" id="file">
<p id="status">idle</p>
<script>
  document.getElementById("file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    const status = document.getElementById("status");
    const { token, endpoint } = await (await fetch("/upload-token", { method: "POST" })).json();
    const upload = new tus.Upload(file, {
      endpoint,
      headers: { Authorization: "Bearer " + token },
      metadata: { filename: file.name, filetype: file.type },
      chunkSize: 256 * 1024,
      retryDelays: [0, 500, 1000],
      onProgress: (sent, total) => { status.dataset.progress = (status.dataset.progress ? status.dataset.progress + "," : "") + sent; },
      onSuccess: () => { status.textContent = "done " + upload.url; },
      onError: (error) => { status.textContent = "error " + error; },
    });
    upload.start();
  });
</script>`;

beforeAll(async () => {
  key = await serviceKey(service, "tus-browser");
  // The page's site: the page, tus-js-client's browser build, and its backend's token route.
  const site = createServer(async (req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    if (req.url === "/tus.min.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(TUS_BUILD));
    if (req.url === "/upload-token" && req.method === "POST") {
      const minted = await fetch(`${service.baseUrl}/v1/uploads/tus/tokens`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
      return res.writeHead(minted.status, { "content-type": "application/json" }).end(await minted.text());
    }
    res.writeHead(404).end();
  });
  servers.push(site);
  await new Promise<void>((done) => site.listen(0, "127.0.0.1", done));
  pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections(), server.close();
  await browser?.close();
});

describe("tus from a browser", () => {
  it("a page uploads a file with tus-js-client and a backend's upload token, cross-origin, and a job runs on it", async () => {
    const width = 640;
    const height = 480;
    const noise = Buffer.alloc(width * height * 3);
    for (let at = 0; at < noise.length; at += 65536) crypto.getRandomValues(noise.subarray(at, Math.min(noise.length, at + 65536)));
    const png = await sharp(noise, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();

    const context = await browser.newContext();
    const page = await context.newPage();
    const sentAuthorization = new Set<string>();
    page.on("request", (request) => {
      if (!request.url().startsWith(service.baseUrl)) return;
      const authorization = request.headers()["authorization"];
      if (authorization) sentAuthorization.add(authorization.split(" ")[1]!.slice(0, 3));
    });
    await page.goto(pageUrl);
    await page.locator("#file").setInputFiles({ name: "noise.png", mimeType: "image/png", buffer: png });
    const status = await poll(async () => {
      const text = await page.locator("#status").innerText();
      return text.startsWith("done") || text.startsWith("error") ? text : undefined;
    }, "the browser's upload to end");
    expect(status).toMatch(/^done http:\/\/127\.0\.0\.1:\d+\/v1\/uploads\/tus\/upl_[A-Za-z0-9]{24}$/);
    const progress = (await page.locator("#status").getAttribute("data-progress"))!.split(",").map(Number);
    expect(progress.at(-1)).toBe(png.length);
    expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(png.length / (256 * 1024)));
    // Cross-origin (Chromium preflights each request, which Playwright does not list; reading
    // Location and Upload-Offset needs them exposed), with only the token, never the API key.
    expect(new URL(pageUrl).origin).not.toBe(new URL(service.baseUrl).origin);
    expect([...sentAuthorization]).toEqual(["ut_"]);
    await context.close();

    const id = status.split("/").pop()!;
    const upload = (await (await fetch(`${service.baseUrl}/v1/uploads/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(upload).toMatchObject({ status: "uploaded", protocol: "tus", size: png.length, filename: "noise.png", contentType: "image/png" });
    const created = await fetch(`${service.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "compress-image", input: `upload:${id}`, options: { format: "jpg", maxWidth: 320 } }),
    });
    expect(created.status).toBe(201);
    const { id: jobId } = (await created.json()) as { id: string };
    const job = await poll(async () => {
      const j = (await (await fetch(`${service.baseUrl}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; result?: { url: string } };
      return ["completed", "failed"].includes(j.status) ? j : undefined;
    }, "the job on the browser's upload");
    expect(job).toMatchObject({ status: "completed", result: { width: 320, height: 240, format: "jpg" } });
    const output = Buffer.from(await (await fetch(job.result!.url)).arrayBuffer());
    expect(await sharp(output).metadata()).toMatchObject({ format: "jpeg", width: 320, height: 240 });
  });
});

// A standard tus client against the whole local service (wrangler dev + the real processor):
// the real tus-js-client (Node) uploads a 6 MB image through a TCP proxy that cuts the
// connection in the middle of a PATCH; a second client instance, in another "process" (no
// shared state but the upload's URL), resumes from the offset the service kept, and a job
// runs on the finished `upload:<id>`; its pause and termination work too. The client
// library's uploadFile does the same on its own.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import * as tus from "tus-js-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MediaJobsClient } from "../../packages/client/src/index.ts";
import { poll, serviceKey } from "../support/e2e-helpers.ts";

// The whole service, started once for the e2e project (test/support/e2e-setup.ts).
const service = inject("service");
let key: string;
let image: Buffer;
const WIDTH = 1500;
const HEIGHT = 1300;
const servers: Server[] = [];

beforeAll(async () => {
  key = await serviceKey(service, "tus-e2e");
  // Noise does not compress: a PNG of about 5.9 MB, over one 5 MiB R2 part.
  const noise = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let at = 0; at < noise.length; at += 65536) crypto.getRandomValues(noise.subarray(at, Math.min(noise.length, at + 65536)));
  image = await sharp(noise, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
}, 120_000);

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

/** A TCP proxy to the service that destroys every connection once `cutAfter` bytes went from the client towards the service. */
async function cuttingProxy(cutAfter: number): Promise<{ url: string; cut: () => boolean }> {
  const target = new URL(service.baseUrl);
  let sent = 0;
  let cut = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    client.on("data", (chunk: Buffer) => {
      sent += chunk.length;
      if (sent >= cutAfter) {
        cut = true;
        for (const socket of sockets) socket.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) socket.on("error", () => undefined).on("close", () => (client.destroy(), upstream.destroy()));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cut: () => cut };
}

async function headOffset(url: string): Promise<number> {
  const res = await fetch(url, { method: "HEAD", headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return Number(res.headers.get("upload-offset"));
}

async function runJobOn(id: string) {
  const client = new MediaJobsClient({ apiKey: key, baseUrl: `${service.baseUrl}/v1` });
  const job = await client.enqueueAndWait({ type: "compressImage", params: { url: `upload:${id}`, format: "webp", maxWidth: 300 } }, { timeout: 90_000, pollInterval: 200 });
  if (job.type !== "compressImage" || job.status !== "completed") throw new Error(`the job ended ${job.status}: ${JSON.stringify(job)}`);
  expect(job).toMatchObject({ width: 300, height: 260, format: "webp", source: { width: WIDTH, height: HEIGHT, size: image.length } });
  const output = Buffer.from(await (await fetch(job.url)).arrayBuffer());
  expect(await sharp(output).metadata()).toMatchObject({ format: "webp", width: 300, height: 260 });
}

describe("tus-js-client against the running service", () => {
  it("survives a connection cut mid-PATCH: another client instance resumes from the service's offset, and a job runs on the upload", async () => {
    const proxy = await cuttingProxy(3_000_000);
    const options = (endpoint: string): tus.UploadOptions => ({
      endpoint: `${endpoint}/v1/uploads/tus`,
      headers: { Authorization: `Bearer ${key}` },
      metadata: { filename: "noise.png", filetype: "image/png" },
      chunkSize: 4 * 1024 * 1024,
      storeFingerprintForResuming: false,
    });

    // First instance: through the proxy, no retries, so the cut ends it.
    const first = new tus.Upload(image, { ...options(proxy.url), retryDelays: [] });
    const failed = await new Promise<Error>((resolve, reject) => {
      Object.assign(first.options, { onError: resolve, onSuccess: () => reject(new Error("the first upload was not cut")) });
      first.start();
    });
    expect(proxy.cut()).toBe(true);
    expect(String(failed)).toMatch(/socket hang up|ECONNRESET|EPIPE|closed|failed to upload chunk/i);
    const uploadUrl = first.url!.replace(proxy.url, service.baseUrl);
    expect(uploadUrl).toMatch(/\/v1\/uploads\/tus\/upl_[A-Za-z0-9]{24}$/);
    const id = uploadUrl.split("/").pop()!;

    // The service kept what arrived of the cut PATCH (once its write ends).
    const kept = await poll(async () => {
      const offset = await headOffset(uploadUrl);
      return offset > 0 ? offset : undefined;
    }, "the cut PATCH's bytes to be kept");
    expect(kept).toBeLessThan(image.length);

    // Second instance, sharing nothing with the first but the URL.
    const progress: number[] = [];
    const second = new tus.Upload(image, {
      ...options(service.baseUrl),
      uploadUrl,
      // A PATCH still writing the cut one's bytes answers 423, which tus-js-client retries.
      retryDelays: [200, 500, 1000, 2000, 4000],
      onProgress: (sent) => progress.push(sent),
    });
    await new Promise<void>((resolve, reject) => {
      Object.assign(second.options, { onSuccess: resolve, onError: reject });
      second.start();
    });
    expect(progress[0]).toBeGreaterThanOrEqual(kept);
    expect(progress.at(-1)).toBe(image.length);
    expect(await headOffset(uploadUrl)).toBe(image.length);

    const upload = (await (await fetch(`${service.baseUrl}/v1/uploads/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(upload).toMatchObject({ id, status: "uploaded", protocol: "tus", size: image.length, contentType: "image/png", filename: "noise.png" });
    await runJobOn(id);
  });

  it("tus-js-client's pause and terminate: the upload keeps what was sent, then is gone (410)", async () => {
    let upload!: tus.Upload;
    await new Promise<void>((resolve, reject) => {
      upload = new tus.Upload(image, {
        endpoint: `${service.baseUrl}/v1/uploads/tus`,
        headers: { Authorization: `Bearer ${key}` },
        metadata: { filename: "noise.png", filetype: "image/png" },
        chunkSize: 1024 * 1024,
        storeFingerprintForResuming: false,
        onChunkComplete: () => void upload.abort().then(resolve, reject),
        onError: reject,
      });
      upload.start();
    });
    expect(await headOffset(upload.url!)).toBe(1024 * 1024);
    await tus.Upload.terminate(upload.url!, { headers: { Authorization: `Bearer ${key}` } });
    const gone = await fetch(upload.url!, { method: "HEAD", headers: { "tus-resumable": "1.0.0", authorization: `Bearer ${key}` } });
    expect(gone.status).toBe(410);
  });

  it("the client library's uploadFile sends the same file resumably in chunks, reporting progress", async () => {
    const client = new MediaJobsClient({ apiKey: key, baseUrl: `${service.baseUrl}/v1` });
    const progress: number[] = [];
    const upload = await client.uploadFile(new Uint8Array(image), { filename: "noise.png", contentType: "image/png", chunkSize: 2 * 1024 * 1024, onProgress: (sent) => progress.push(sent) });
    expect(upload).toMatchObject({ status: "uploaded", protocol: "tus", size: image.length });
    expect(progress).toEqual([0, 2 * 1024 * 1024, 4 * 1024 * 1024, image.length]);
    await runJobOn(upload.id);
  });
});

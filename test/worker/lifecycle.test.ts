// End to end inside the Workers runtime: API → queue → runner → the real processor →
// R2 → signed download, with outputs checked by sharp (through the media server).
import { describe, expect, it } from "vitest";
import { signLink } from "../../src/files/signing.ts";
import { call, media, newKey, testEnv, waitForJob, workerFetch } from "./helpers.ts";

async function inspect(bytes: ArrayBuffer) {
  const res = await fetch(media("/inspect"), { method: "POST", body: bytes });
  return (await res.json()) as { format: string; width: number; height: number };
}


describe("a compress-image job end to end", () => {
  it("goes queued → processing → completed with every result field and a working signed link", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image?w=1600&h=1200"), options: { quality: 70, format: "webp", maxWidth: 800 } },
    });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id);
    expect(job).toMatchObject({ id: created.json.id, type: "compress-image", status: "completed", progress: 100, priority: 5 });
    expect(job.startedAt).toEqual(expect.any(String));
    expect(job.completedAt).toEqual(expect.any(String));
    expect(job.result).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^/]+\/image\.webp$/),
      expiresAt: expect.any(String),
      size: expect.any(Number),
      width: 800,
      height: 600,
      format: "webp",
      compressionRatio: expect.any(Number),
      keptOriginal: false,
      source: { size: expect.any(Number), width: 1600, height: 1200, format: "jpeg" },
    });
    const lifetime = new Date(job.result.expiresAt).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    expect(job.result.compressionRatio).toBeCloseTo(job.result.size / job.result.source.size, 3);

    const res = await workerFetch(job.result.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(Number(res.headers.get("content-length"))).toBe(job.result.size);
    const meta = await inspect(await res.arrayBuffer());
    expect(meta).toMatchObject({ format: "webp", width: 800, height: 600 });

    const again = await call("GET", `/v1/jobs/${job.id}`, { key });
    expect(again.json.result.url).not.toBe(job.result.url);
    expect((await workerFetch(again.json.result.url)).status).toBe(200);

    const object = await testEnv.OUTPUTS.head(`outputs/${job.id}/image.webp`);
    expect(object?.size).toBe(job.result.size);
  });

  it("crops to the exact box asked for with fit cover and a smart position, in either dialect", async () => {
    const { key } = await newKey();
    const shape = { maxWidth: 300, maxHeight: 200, fit: "cover", position: "entropy" };
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=1600&h=1200"), options: shape } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=1200&h=1600"), ...shape } } });
    for (const created of [http, sdk]) {
      expect(created.status).toBe(201);
      const { job } = await waitForJob(key, created.json.id);
      expect(job).toMatchObject({ status: "completed", result: { width: 300, height: 200, format: "jpg" } });
      expect(await inspect(await (await workerFetch(job.result.url)).arrayBuffer())).toMatchObject({ format: "jpeg", width: 300, height: 200 });
    }
  });

  it("serves byte ranges and refuses tampered and expired links with 403", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image"), quality: 70 } } });
    const { job } = await waitForJob(key, created.json.id);
    expect(job.status).toBe("completed");
    expect(job.result.format).toBe("jpg");

    const range = await workerFetch(job.result.url, { headers: { range: "bytes=0-9" } });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-range")).toBe(`bytes 0-9/${job.result.size}`);
    expect((await range.arrayBuffer()).byteLength).toBe(10);

    const path = new URL(job.result.url).pathname;
    const [, , , token, name] = path.split("/");
    const [payload, signature] = token!.split(".");
    const flipped = signature!.slice(0, -2) + (signature!.endsWith("AA") ? "BB" : "AA");
    const tampered = await call("GET", `/v1/files/${payload}.${flipped}/${name}`);
    expect(tampered.status).toBe(403);
    expect(tampered.json.error.code).toBe("forbidden");

    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await signLink(testEnv.FILES_SIGNING_SECRET, "http://127.0.0.1:8787", `outputs/${job.id}/image.jpg`, past);
    const res = await call("GET", new URL(expired).pathname);
    expect(res.status).toBe(403);
    expect(res.json.error.message).toContain("expired");
  });

  it.each([
    ["an HTML page served as image/jpeg", "unsupported_media", "/html"],
    ["a 1-byte file", "unsupported_media", "/one-byte"],
    ["a 404", "input_unreachable", "/missing.jpg"],
  ])("fails %s with %s", async (_, code, path) => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media(path) } });
    const { job } = await waitForJob(key, created.json.id);
    expect(job).toMatchObject({ status: "failed", error: { code, message: expect.any(String) } });
    expect(job.result).toBeUndefined();
    expect(job.error.message).not.toMatch(/\/tmp|at .*\.ts/);
  });
});

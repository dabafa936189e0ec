// uploadFile over tus (docs/sdk.md, uploadFile): a file past one chunk is created with
// Upload-Length and Upload-Metadata, sent in PATCHes of chunkSize, and after a failure
// (no answer, 5xx, 409, 423) resumed from the offset a HEAD reports, with backoff; a
// refusal fails at once. What goes over the wire is asserted byte for byte.
import { describe, expect, it } from "vitest";
import { MediaJobsClient, RESUMABLE_UPLOADS } from "../src/index.ts";
import { fakeFetch, instantSleep, json, type RecordedCall } from "./fake-fetch.ts";

const BASE = "https://api.test/v1";
const URL_ = "https://api.test/v1/uploads/tus/upl_abcdefghijklmnopqrstuvwx";
const bytes = Uint8Array.from({ length: 10 }, (_, i) => i);
const upload = { id: "upl_abcdefghijklmnopqrstuvwx", status: "uploaded", protocol: "tus", received: 10, filename: "clip.mp4", contentType: "video/mp4", size: 10, createdAt: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-02T00:00:00.000Z" };

const tus = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers: { "tus-resumable": "1.0.0", ...headers } });

async function sent(call: RecordedCall): Promise<number[]> {
  return Array.from(new Uint8Array(await new Response(call.rawBody as BodyInit).arrayBuffer()));
}

function client(fetch: ReturnType<typeof fakeFetch>, sleep = instantSleep()) {
  return new MediaJobsClient({ apiKey: "sk_test_x", baseUrl: BASE, fetch, sleep });
}

describe("uploadFile, resumable", () => {
  it("sends chunks that are a multiple of the service's 5 MiB parts by default (docs/api.md: chunk size), so no PATCH leaves a tail for the next to rewrite", () => {
    expect(RESUMABLE_UPLOADS.chunkBytes % (5 * 1024 * 1024)).toBe(0);
    expect(RESUMABLE_UPLOADS.chunkBytes).toBeGreaterThanOrEqual(5 * 1024 * 1024);
  });

  it("creates with Upload-Length and base64 Upload-Metadata, PATCHes chunk by chunk, reports progress and returns the upload", async () => {
    const fetch = fakeFetch(
      tus(201, { location: "/v1/uploads/tus/upl_abcdefghijklmnopqrstuvwx" }),
      tus(200, { "upload-offset": "0", "upload-length": "10" }),
      tus(204, { "upload-offset": "4" }),
      tus(204, { "upload-offset": "8" }),
      tus(204, { "upload-offset": "10" }),
      json(200, upload),
    );
    const progress: number[] = [];
    const urls: string[] = [];
    const result = await client(fetch).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", chunkSize: 4, onProgress: (sent) => progress.push(sent), onUploadUrl: (url) => urls.push(url) });
    expect(result).toEqual(upload);
    const [create, head, ...rest] = fetch.calls;
    expect(create).toMatchObject({ method: "POST", url: `${BASE}/uploads/tus` });
    expect(create!.headers.get("tus-resumable")).toBe("1.0.0");
    expect(create!.headers.get("authorization")).toBe("Bearer sk_test_x");
    expect(create!.headers.get("upload-length")).toBe("10");
    expect(create!.headers.get("upload-metadata")).toBe(`filename ${btoa("clip.mp4")},filetype ${btoa("video/mp4")}`);
    expect(urls).toEqual([URL_]);
    expect(head).toMatchObject({ method: "HEAD", url: URL_ });
    const patches = rest.slice(0, 3);
    expect(patches.map((c) => [c.method, c.headers.get("upload-offset"), c.headers.get("content-type")])).toEqual([
      ["PATCH", "0", "application/offset+octet-stream"],
      ["PATCH", "4", "application/offset+octet-stream"],
      ["PATCH", "8", "application/offset+octet-stream"],
    ]);
    expect(await Promise.all(patches.map(sent))).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
    expect(progress).toEqual([0, 4, 8, 10]);
    expect(fetch.calls.at(-1)).toMatchObject({ method: "GET", url: `${BASE}/uploads/upl_abcdefghijklmnopqrstuvwx` });
  });

  it("after a cut connection, a 500 or a 423 asks HEAD for the offset and resumes from there, with backoff", async () => {
    const sleep = instantSleep();
    const fetch = fakeFetch(
      tus(201, { location: URL_ }),
      tus(200, { "upload-offset": "0" }),
      new TypeError("fetch failed: socket hang up"),
      // The service kept 3 bytes of the cut PATCH.
      tus(200, { "upload-offset": "3" }),
      tus(500),
      tus(200, { "upload-offset": "3" }),
      tus(423),
      tus(200, { "upload-offset": "3" }),
      tus(204, { "upload-offset": "10" }),
      json(200, upload),
    );
    await client(fetch, sleep).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", chunkSize: 8 });
    const patches = fetch.calls.filter((c) => c.method === "PATCH");
    expect(patches.map((c) => c.headers.get("upload-offset"))).toEqual(["0", "3", "3", "3"]);
    expect(await sent(patches[3]!)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(sleep.delays).toHaveLength(3);
    for (const delay of sleep.delays) expect(delay).toBeGreaterThan(0);
  });

  it("resumes an upload another process started (uploadUrl): no creation, from the service's offset", async () => {
    const fetch = fakeFetch(tus(200, { "upload-offset": "6" }), tus(204, { "upload-offset": "10" }), json(200, upload));
    await client(fetch).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", uploadUrl: URL_ });
    expect(fetch.calls.map((c) => c.method)).toEqual(["HEAD", "PATCH", "GET"]);
    expect(await sent(fetch.calls[1]!)).toEqual([6, 7, 8, 9]);
  });

  it("sends a stream a chunk at a time, keeping only the chunk being sent", async () => {
    const fetch = fakeFetch(tus(201, { location: URL_ }), tus(200, { "upload-offset": "0" }), tus(204, { "upload-offset": "6" }), tus(204, { "upload-offset": "10" }), json(200, upload));
    const stream = new Blob([bytes]).stream();
    await client(fetch).uploadFile(stream, { filename: "clip.mp4", contentType: "video/mp4", size: 10, chunkSize: 6 });
    const patches = fetch.calls.filter((c) => c.method === "PATCH");
    expect(await Promise.all(patches.map(sent))).toEqual([[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]);
  });

  it("fails at once on a refusal (413), and after maxFailures failures in a row names the URL to resume with", async () => {
    const refused = fakeFetch(tus(201, { location: URL_ }), tus(200, { "upload-offset": "0" }), new Response('{"error":{"code":"payload_too_large"}}', { status: 413 }));
    await expect(client(refused).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", chunkSize: 4 })).rejects.toThrow(/PATCH at offset 0 failed with HTTP 413/);
    const down = fakeFetch(tus(201, { location: URL_ }), tus(200, { "upload-offset": "0" }), ...Array.from({ length: RESUMABLE_UPLOADS.maxFailures * 2 }, () => tus(503, { "upload-offset": "0" })));
    await expect(client(down).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", chunkSize: 4 })).rejects.toThrow(new RegExp(`${RESUMABLE_UPLOADS.maxFailures} PATCHes in a row failed.*uploadUrl: "${URL_}"`));
  });

  it("sends a file up to one chunk as before: one direct PUT", async () => {
    const created = { ...upload, status: "pending", target: { method: "PUT", url: "https://r2.test/put?sig=1", expiresAt: "2026-01-01T01:00:00.000Z", headers: { "content-length": "10" } } };
    const fetch = fakeFetch(json(201, created), new Response(null, { status: 200 }), json(200, upload));
    const progress: number[] = [];
    await client(fetch).uploadFile(bytes, { filename: "clip.mp4", contentType: "video/mp4", onProgress: (sent) => progress.push(sent) });
    expect(fetch.calls.map((c) => `${c.method} ${c.url}`)).toEqual([`POST ${BASE}/uploads`, "PUT https://r2.test/put?sig=1", `GET ${BASE}/uploads/upl_abcdefghijklmnopqrstuvwx`]);
    expect(progress).toEqual([10]);
  });

  it("createUploadToken asks the service for a browser token", async () => {
    const minted = () => json(201, { token: "ut_x.y", endpoint: `${BASE}/uploads/tus`, expiresAt: "2026-01-01T01:00:00.000Z", maxUploads: 1, maxBytes: 1000 });
    const fetch = fakeFetch(minted(), minted());
    expect(await client(fetch).createUploadToken()).toMatchObject({ token: "ut_x.y" });
    expect(fetch.calls[0]).toMatchObject({ method: "POST", url: `${BASE}/uploads/tus/tokens` });
    await client(fetch).createUploadToken({ maxUploads: 3, maxBytes: 1000 });
    expect(fetch.calls[1]!.body).toEqual({ maxUploads: 3, maxBytes: 1000 });
  });
});

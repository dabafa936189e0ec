// List filters on the wire, DELETE, and uploads: what the client sends for each.
import { describe, expect, it } from "vitest";
import { MediaJobsClient } from "../src/index.ts";
import { fakeFetch, json } from "./fake-fetch.ts";

const BASE = "https://api.test/v1";
const upload = { id: "upl_1", status: "pending", filename: "a.png", contentType: "image/png", size: 4, createdAt: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-02T00:00:00.000Z" };
const created = { ...upload, target: { method: "PUT", url: "https://r2.test/put?sig=1", expiresAt: "2026-01-01T01:00:00.000Z", headers: { "content-type": "image/png", "content-length": "4" } } };

function client(fetch: ReturnType<typeof fakeFetch>) {
  return new MediaJobsClient({ apiKey: "sk_test_x", baseUrl: BASE, fetch });
}

async function bodyBytes(body: unknown): Promise<number[]> {
  return Array.from(new Uint8Array(await new Response(body as BodyInit).arrayBuffer()));
}

describe("list filters", () => {
  it("sends type, created[gte]/created[lt] in Unix seconds (from a Date or a number) and metadata[key]", async () => {
    const fetch = fakeFetch(json(200, { data: [], nextCursor: null, hasMore: false }));
    await client(fetch)
      .listJobs({ type: "compressImage", created: { gte: new Date("2026-01-01T00:00:00Z"), lt: 1767312000 }, metadata: { order: "ord 1" } })
      .page();
    const url = new URL(fetch.calls[0]!.url);
    expect(url.pathname).toBe("/v1/jobs");
    expect(url.searchParams.get("type")).toBe("compressImage");
    expect(url.searchParams.get("created[gte]")).toBe("1767225600");
    expect(url.searchParams.get("created[lt]")).toBe("1767312000");
    expect(url.searchParams.get("metadata[order]")).toBe("ord 1");
  });
});

describe("enqueueJob metadata", () => {
  it("sends the metadata in the create body", async () => {
    const fetch = fakeFetch(json(201, { id: "job_1", type: "compress-image", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 }));
    await client(fetch).enqueueJob({ type: "compressImage", params: { url: "upload:upl_1" }, metadata: { order: "ord_1" } });
    expect(fetch.calls[0]!.body).toMatchObject({ type: "compressImage", params: { url: "upload:upl_1" }, metadata: { order: "ord_1" } });
  });
});

describe("deleteJob", () => {
  it("sends DELETE /jobs/:id and returns the answer", async () => {
    const fetch = fakeFetch(json(200, { id: "job_1", deleted: true }));
    expect(await client(fetch).deleteJob("job_1")).toEqual({ id: "job_1", deleted: true });
    expect(fetch.calls[0]!.method).toBe("DELETE");
    expect(fetch.calls[0]!.url).toBe(`${BASE}/jobs/job_1`);
  });
});

describe("uploadFile", () => {
  const sources: [string, () => unknown, Record<string, unknown>][] = [
    ["a Blob", () => new Blob([new Uint8Array([1, 2, 3, 4])], { type: "image/png" }), { filename: "a.png" }],
    ["bytes", () => new Uint8Array([1, 2, 3, 4]), { filename: "a.png", contentType: "image/png" }],
    ["a stream", () => new Blob([new Uint8Array([1, 2, 3, 4])]).stream(), { filename: "a.png", contentType: "image/png", size: 4 }],
  ];
  for (const [name, source, options] of sources) {
    it(`creates the upload, PUTs ${name} to the target with its headers and no API key, returns the upload`, async () => {
      const fetch = fakeFetch(json(201, created), new Response(null, { status: 200 }), json(200, { ...upload, status: "uploaded" }));
      const result = await client(fetch).uploadFile(source() as Blob, options);
      expect(result).toMatchObject({ id: "upl_1", status: "uploaded" });
      const [create, put, get] = fetch.calls;
      expect(create!.method).toBe("POST");
      expect(create!.url).toBe(`${BASE}/uploads`);
      expect(create!.body).toEqual({ filename: "a.png", contentType: "image/png", size: 4 });
      expect(put!.method).toBe("PUT");
      expect(put!.url).toBe(created.target.url);
      expect(put!.headers.get("content-type")).toBe("image/png");
      expect(put!.headers.get("content-length")).toBe("4");
      expect(put!.headers.get("authorization")).toBeNull();
      expect(await bodyBytes(put!.rawBody)).toEqual([1, 2, 3, 4]);
      expect(get!.url).toBe(`${BASE}/uploads/upl_1`);
    });
  }

  it("refuses a stream without a size, before any request", async () => {
    const fetch = fakeFetch();
    await expect(client(fetch).uploadFile(new Blob([]).stream(), { filename: "a.png", contentType: "image/png" })).rejects.toThrow(/needs \{ size \}/);
    expect(fetch.calls).toHaveLength(0);
  });

  it("fails with the PUT's status when the target refuses the bytes", async () => {
    const fetch = fakeFetch(json(201, created), new Response("size mismatch", { status: 400 }));
    await expect(client(fetch).uploadFile(new Uint8Array([1, 2, 3, 4]), { filename: "a.png", contentType: "image/png" })).rejects.toThrow(/HTTP 400: size mismatch/);
  });
});

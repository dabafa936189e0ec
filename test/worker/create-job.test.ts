import { describe, expect, it } from "vitest";
import { call, media, newKey, testEnv, workerFetch } from "./helpers.ts";

describe("POST /v1/jobs", () => {
  it("creates a job in the HTTP dialect and answers 201 queued at once", async () => {
    const { key, orgId } = await newKey();
    const res = await call("POST", "/v1/jobs", {
      key,
      body: { type: "compress-image", input: media("/image"), options: { quality: 70, format: "webp", maxWidth: 800 } },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: expect.stringMatching(/^job_[A-Za-z0-9]{24}$/), type: "compress-image", status: "queued", priority: 5, createdAt: expect.any(String) });
    expect(new Date(res.json.createdAt as string).toISOString()).toBe(res.json.createdAt);
    const row = await testEnv.DB.prepare("SELECT org_id, type, params, mode FROM jobs WHERE id = ?").bind(res.json.id).first<Record<string, string>>();
    expect(row).toMatchObject({ org_id: orgId, type: "compressImage", mode: "live" });
    expect(JSON.parse(row!.params!)).toEqual({ url: media("/image"), quality: 70, format: "webp", maxWidth: 800, stripMetadata: false });
  });

  it("stores fit and position only when given, in both dialects", async () => {
    const { key } = await newKey();
    const shaped = { fit: "cover", position: "attention", maxWidth: 300, maxHeight: 200 };
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image"), options: shaped } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image"), ...shaped } } });
    for (const res of [http, sdk]) {
      expect(res.status).toBe(201);
      const row = await testEnv.DB.prepare("SELECT params FROM jobs WHERE id = ?").bind(res.json.id).first<{ params: string }>();
      expect(JSON.parse(row!.params)).toEqual({ url: media("/image"), quality: 80, stripMetadata: false, ...shaped });
    }
  });

  it("stores a watermark with its defaults, in both dialects", async () => {
    const { key } = await newKey();
    const text = { text: "© acme", position: "bottom-right", opacity: 0.6 };
    const logo = { url: "https://example.com/logo.png", position: "top-left", size: 0.15 };
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-video", input: media("/video"), options: { watermark: text } } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "videoThumbnail", params: { url: media("/video"), watermark: logo } } });
    expect([http.status, sdk.status]).toEqual([201, 201]);
    const params = async (id: unknown) => JSON.parse((await testEnv.DB.prepare("SELECT params FROM jobs WHERE id = ?").bind(id).first<{ params: string }>())!.params);
    expect((await params(http.json.id)).watermark).toEqual({ ...text, margin: 0.02 });
    expect((await params(sdk.json.id)).watermark).toEqual({ ...logo, margin: 0.02, opacity: 1 });
  });

  it("creates the same job from the SDK dialect with either spelling of the type", async () => {
    const { key } = await newKey();
    for (const type of ["compressImage", "compress-image"]) {
      const res = await call("POST", "/v1/jobs", { key, body: { type, params: { url: media("/image"), quality: 70 }, priority: 2 } });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({ type: "compress-image", status: "queued", priority: 2 });
    }
  });

  it.each([
    ["a bad URL", { type: "compress-image", input: "not a url" }, "input"],
    ["an ftp URL", { type: "compress-image", input: "ftp://example.com/a.jpg" }, "input"],
    ["an unknown type", { type: "resize-image", input: "https://example.com/a.jpg" }, "type"],
    ["quality 0", { type: "compress-image", input: "https://example.com/a.jpg", options: { quality: 0 } }, "options.quality"],
    ["quality 101", { type: "compressImage", params: { url: "https://example.com/a.jpg", quality: 101 } }, "params.quality"],
    ["an unknown option", { type: "compress-image", input: "https://example.com/a.jpg", options: { qualty: 50 } }, "options.qualty"],
    ["an unknown top-level field", { type: "compress-image", input: "https://example.com/a.jpg", callback: "x" }, "callback"],
    ["priority 11", { type: "compress-image", input: "https://example.com/a.jpg", priority: 11 }, "priority"],
    ["both dialects at once", { type: "compress-image", input: "https://example.com/a.jpg", params: { url: "https://example.com/a.jpg" } }, "params"],
    ["no input", { type: "compress-image" }, "input"],
    ["webm with h264", { type: "compress-video", input: "https://example.com/a.mp4", options: { format: "webm", codec: "h264" } }, "options.format"],
    ["31 frames", { type: "videoExtraction", params: { url: "https://example.com/a.mp4", frames: { mode: "count", count: 31 } } }, "params.frames.count"],
    ["nothing to extract", { type: "video-extraction", input: "https://example.com/a.mp4", options: { audio: false } }, "options.frames"],
    ["31 timestamps", { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: { mode: "timestamps", values: Array.from({ length: 31 }, (_, i) => i) } } }, "options.frames.values", /at most 30 timestamps/],
    ["an unknown frames mode", { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: { mode: "every" } } }, "options.frames.mode", /one of "count", "percentage", "interval", "timestamps"/],
    ["frames of the wrong type", { type: "videoExtraction", params: { url: "https://example.com/a.mp4", frames: "all" } }, "params.frames", /must be false or an object/],
    ["an unknown audio quality", { type: "videoExtraction", params: { url: "https://example.com/a.mp4", audio: { quality: "best" } } }, "params.audio.quality", /"low"\|"medium"\|"high"/],
    ["a cover crop with one side", { type: "compress-image", input: "https://example.com/a.jpg", options: { fit: "cover", maxWidth: 300 } }, "options.fit", /needs both maxWidth and maxHeight/],
    ["attention without cover", { type: "compressImage", params: { url: "https://example.com/a.jpg", fit: "contain", position: "attention", maxWidth: 300, maxHeight: 300 } }, "params.position", /needs fit "cover"/],
    ["an unknown position", { type: "video-thumbnail", input: "https://example.com/a.mp4", options: { width: 300, height: 300, position: "middle" } }, "options.position", /"attention"\|"entropy"/],
    ["a position with one side", { type: "videoThumbnail", params: { url: "https://example.com/a.mp4", width: 300, position: "entropy" } }, "params.position", /needs both width and height/],
    ["a position with fill", { type: "video-thumbnail", input: "https://example.com/a.mp4", options: { width: 300, height: 300, fit: "fill", position: "top" } }, "options.position", /only with fit "cover" or "contain"/],
    ["a background without contain", { type: "videoExtraction", params: { url: "https://example.com/a.mp4", frames: { mode: "count", count: 2, width: 300, height: 300, background: "#ffffff" } } }, "params.frames.background", /contain/],
    ["a background that is no colour", { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: { mode: "count", count: 2, width: 300, height: 300, fit: "contain", background: "white" } } }, "options.frames.background", /#rrggbb/],
    ["a negative percentage", { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: { mode: "percentage", values: [10, -1] } } }, "options.frames.values.1", />=0/],
    ["a watermark position that is none", { type: "compress-image", input: "https://example.com/a.jpg", options: { watermark: { text: "© acme", position: "middle" } } }, "options.watermark.position", /"bottom-right"/],
    ["a watermark with text and url", { type: "compressVideo", params: { url: "https://example.com/a.mp4", watermark: { text: "© acme", url: "https://example.com/logo.png" } } }, "params.watermark.url", /not both/],
    ["a watermark with neither text nor url", { type: "video-thumbnail", input: "https://example.com/a.mp4", options: { watermark: { opacity: 0.5 } } }, "options.watermark", /give text or url/],
    ["a watermark opacity over 1", { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: { mode: "count", count: 2, watermark: { text: "x", opacity: 1.5 } } } }, "options.frames.watermark.opacity", /<=1/],
    ["a watermark text of two lines", { type: "compressImage", params: { url: "https://example.com/a.jpg", watermark: { text: "a\nb" } } }, "params.watermark.text", /one line/],
    ["a watermark text of 201 characters", { type: "compress-video", input: "https://example.com/a.mp4", options: { watermark: { text: "x".repeat(201) } } }, "options.watermark.text", /<=200/],
    ["an unknown watermark field", { type: "compress-image", input: "https://example.com/a.jpg", options: { watermark: { text: "x", colour: "red" } } }, "options.watermark.colour", /unknown field/],
    ["a watermark URL with a password", { type: "compress-image", input: "https://example.com/a.jpg", options: { watermark: { url: "https://user:pw@example.com/logo.png" } } }, "options.watermark.url", /user name or password/],
    ["a frames watermark URL with a password", { type: "videoExtraction", params: { url: "https://example.com/a.mp4", frames: { mode: "count", count: 2, watermark: { url: "https://user:pw@example.com/logo.png" } } } }, "params.frames.watermark.url", /user name or password/],
    ["an append URL with a password", { type: "video-concat", input: "https://example.com/a.mp4", options: { append: ["https://example.com/b.mp4", "https://user:pw@example.com/c.mp4"] } }, "options.append.1", /user name or password/],
    ["an upload in append that is not the organization's", { type: "videoConcat", params: { url: "https://example.com/a.mp4", append: ["upload:upl_abcdefghijklmnopqrstuvwx"] } }, "params.append.0", /no upload upl_abcdefghijklmnopqrstuvwx for this organization/],
    ["a join of 11 videos on the pro plan", { type: "video-concat", input: "https://example.com/a.mp4", options: { append: Array.from({ length: 10 }, (_, i) => `https://example.com/${i}.mp4`) } }, "options.append", /pro plan allows joins of at most 10 videos/],
    ["a clip that ends before it starts", { type: "video-clip", input: "https://example.com/a.mp4", options: { start: 10, end: 4 } }, "options.end", /after start/],
  ])("refuses %s with 400 invalid_input naming the field", async (_, body, path, rule?: RegExp) => {
    const { key } = await newKey();
    const res = await call("POST", "/v1/jobs", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(res.json.error.message).toContain(path);
    if (rule) expect(res.json.error.details.find((d: { path: string }) => d.path === path).message).toMatch(rule);
  });

  it.each([
    ["text/plain", "text/plain"],
    ["a form", "application/x-www-form-urlencoded"],
    ["no Content-Type", undefined],
  ])("refuses a JSON body sent as %s with 415 unsupported_media_type", async (_, contentType) => {
    const { key, orgId } = await newKey();
    const body = JSON.stringify({ type: "compress-image", input: "https://example.com/a.jpg" });
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (contentType) headers["content-type"] = contentType;
    const res = await workerFetch("http://127.0.0.1:8787/v1/jobs", { method: "POST", headers, body: contentType ? body : new TextEncoder().encode(body) });
    expect(res.status).toBe(415);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe("unsupported_media_type");
    expect(json.error.message).toContain("application/json");
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });

  it("accepts application/json with a charset and application/…+json", async () => {
    const { key } = await newKey();
    for (const contentType of ["application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"]) {
      const body = JSON.stringify({ type: "compress-image", input: "https://example.com/a.jpg", options: { quality: 0 } });
      const res = await workerFetch("http://127.0.0.1:8787/v1/jobs", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": contentType }, body });
      // Read as JSON: refused for its content (quality 0), not for its media type.
      expect(res.status).toBe(400);
    }
  });

  it("refuses malformed JSON with 400 and an oversized body with 413", async () => {
    const { key } = await newKey();
    const malformed = await call("POST", "/v1/jobs", { key, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe("invalid_input");
    const huge = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: "https://example.com/a.jpg", webhookSecret: "x".repeat(70_000) } });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe("payload_too_large");
  });

  it("creates nothing for a refused request", async () => {
    const { key, orgId } = await newKey();
    await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: "https://example.com/a.jpg", options: { quality: 0 } } });
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });
});

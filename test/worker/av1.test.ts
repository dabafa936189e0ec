// compressVideo with codec av1 at the API: both dialects, the WebM rule, and the plan's
// AV1 size limit (limits/media-limits.ts): a box over it refused at its field before anything
// is saved, an unsaid one filled with it.
import { describe, expect, it } from "vitest";
import { call, media, newKey, testEnv } from "./helpers.ts";

/** Only the stored params are checked here: the encodes are cancelled, not left to load the processor every test file shares. */
const cancel = (key: string, ...ids: string[]) => Promise.all(ids.map((id) => call("POST", `/v1/jobs/${id}/cancel`, { key })));

const storedParams = async (id: string) => JSON.parse((await testEnv.DB.prepare("SELECT params FROM jobs WHERE id = ?").bind(id).first<{ params: string }>())!.params);

describe("POST /v1/jobs with codec av1", () => {
  it("takes codec av1 in both dialects within the plan's AV1 size, and stores it as given", async () => {
    const { key } = await newKey({ plan: "free" });
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-video", input: media("/video"), options: { codec: "av1", format: "webm", maxWidth: 1280, maxHeight: 720 } } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressVideo", params: { url: media("/video"), codec: "av1", maxWidth: 640, maxHeight: 1280 } } });
    for (const res of [http, sdk]) expect(res.status).toBe(201);
    expect(await storedParams(http.json.id)).toEqual({ url: media("/video"), quality: "medium", codec: "av1", format: "webm", maxWidth: 1280, maxHeight: 720, stripAudio: false });
    expect(await storedParams(sdk.json.id)).toEqual({ url: media("/video"), quality: "medium", codec: "av1", maxWidth: 640, maxHeight: 1280, stripAudio: false });
    await cancel(key, http.json.id, sdk.json.id);
  });

  it("stores an AV1 encode that names no size with the plan's largest side as its box", async () => {
    const { key } = await newKey({ plan: "pro" });
    const res = await call("POST", "/v1/jobs", { key, body: { type: "compress-video", input: media("/video"), options: { codec: "av1", maxHeight: 720 } } });
    expect(res.status).toBe(201);
    expect(await storedParams(res.json.id)).toMatchObject({ codec: "av1", maxWidth: 1920, maxHeight: 720 });
    await cancel(key, res.json.id);
  });

  it.each([
    ["free", { type: "compressVideo", params: { url: "https://example.com/a.mp4", codec: "av1", maxWidth: 1920, maxHeight: 1080 } }, "params.maxWidth", /the free plan allows AV1 encodes of at most 1280 pixels a side.*maxWidth is 1920/],
    ["pro", { type: "compressVideo", params: { url: "https://example.com/a.mp4", codec: "av1", maxWidth: 1920, maxHeight: 2160 } }, "params.maxHeight", /the pro plan allows AV1 encodes of at most 1920 pixels a side.*maxHeight is 2160/],
    ["enterprise", { type: "compress-video", input: "https://example.com/a.mp4", options: { codec: "av1", maxWidth: 2561 } }, "options.maxWidth", /the enterprise plan allows AV1 encodes of at most 2560 pixels a side.*move to a larger plan/],
  ])("refuses an AV1 encode past the %s plan's size with 400 invalid_input at the field, saving nothing", async (plan, body, path, rule) => {
    const { key, orgId } = await newKey({ plan });
    const res = await call("POST", "/v1/jobs", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details).toEqual([{ path, message: expect.stringMatching(rule) }]);
    expect(res.json.error.message).toContain(path);
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id = ?").bind(orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });

  it.each([
    ["webm with h265", { type: "compressVideo", params: { url: "https://example.com/a.mp4", format: "webm", codec: "h265" } }, "params.format", /webm holds only the vp9 and av1 codecs/],
    ["an unknown codec", { type: "compress-video", input: "https://example.com/a.mp4", options: { codec: "av2" } }, "options.codec", /"av1"/],
  ])("refuses %s with 400 invalid_input naming the field", async (_, body, path, rule) => {
    const { key } = await newKey();
    const res = await call("POST", "/v1/jobs", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details.find((d: { path: string }) => d.path === path).message).toMatch(rule);
  });
});

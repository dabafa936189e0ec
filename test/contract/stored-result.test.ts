// What a processor returns is checked against its type's result schema, with output
// names where the API later puts signed links (and no expiresAt yet).
import { describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";

const image = {
  url: "image.webp",
  size: 1200,
  width: 64,
  height: 48,
  format: "webp",
  compressionRatio: 0.5,
  keptOriginal: false,
  source: { size: 2400, width: 64, height: 48, format: "png" },
};

describe("parseStoredResult", () => {
  it("accepts a result with output names and no expiresAt, at any depth", () => {
    expect(parseStoredResult("compressImage", image)).toEqual({ ok: true, value: image });
    const extraction = {
      audio: { url: "audio.mp3", size: 10, duration: 6, format: "mp3", bitrate: "192kbps" },
      frames: [{ url: "frame-01.jpg", size: 5, width: 160, height: 90, format: "jpg", timestamp: 0 }],
      source: { size: 100, duration: 6, width: 320, height: 180, format: "mp4", hasAudio: true },
    };
    expect(parseStoredResult("videoExtraction", extraction)).toEqual({ ok: true, value: extraction });
    expect(parseStoredResult("videoExtraction", { ...extraction, audio: null })).toMatchObject({ ok: true });
  });

  it("names each field that does not fit the schema", () => {
    const check = parseStoredResult("compressImage", { ...image, format: "gif", source: { ...image.source, width: "64" } });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.issues.map((i) => i.path).sort()).toEqual(["format", "source.width"]);
    const frames = parseStoredResult("videoExtraction", { audio: null, frames: [{ url: "f.jpg" }], source: {} });
    expect(!frames.ok && frames.issues.map((i) => i.path)).toContain("frames.0.size");
    expect(parseStoredResult("compressPdf", undefined)).toMatchObject({ ok: false, issues: [{ path: "(result)" }] });
  });

  it("drops fields the contract does not know", () => {
    expect(parseStoredResult("compressImage", { ...image, debug: "/tmp/x" })).toEqual({ ok: true, value: image });
  });
});

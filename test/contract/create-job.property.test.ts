// Every generated create body gets an answer: a request, or issues that each name a field
// of that body and a rule. A throw here is a 500 in the route.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCreateJob } from "../../src/contract/create-job.ts";
import { createBody, pathInRequest } from "../support/create-bodies.ts";

describe("parseCreateJob on generated bodies", () => {
  it("never throws, and every issue names a field path of the request and a rule", () => {
    fc.assert(
      fc.property(createBody, (body) => {
        const result = parseCreateJob(body);
        if (result.ok) return;
        expect(result.issues.length).toBeGreaterThan(0);
        for (const issue of result.issues) {
          expect(pathInRequest(body, issue.path), `${issue.path} in ${JSON.stringify(body)}`).toBe(true);
          expect(issue.message).not.toBe("Invalid input");
          expect(issue.message.length).toBeGreaterThan(5);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts what it should: valid bodies in both dialects", () => {
    const frames = fc.oneof(
      fc.record({ mode: fc.constant("count"), count: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ mode: fc.constant("percentage"), values: fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 30 }) }),
      fc.record({ mode: fc.constant("timestamps"), values: fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }) }),
    );
    fc.assert(
      fc.property(frames, fc.boolean(), (f, http) => {
        const body = http
          ? { type: "video-extraction", input: "https://example.com/a.mp4", options: { frames: f } }
          : { type: "videoExtraction", params: { url: "https://example.com/a.mp4", frames: f } };
        const result = parseCreateJob(JSON.parse(JSON.stringify(body)));
        expect(result).toMatchObject({ ok: true, value: { type: "videoExtraction", params: { frames: { mode: f.mode } } } });
      }),
      { numRuns: 300 },
    );
  });

  it("accepts every video preview inside the contract's bounds, in both dialects", () => {
    const preview = fc.record(
      {
        format: fc.constantFrom("webp", "gif", "mp4"),
        start: fc.double({ min: 0, max: 1e6, noNaN: true }),
        duration: fc.double({ min: 0.01, max: 30, noNaN: true }),
        width: fc.integer({ min: 16, max: 1280 }),
        fps: fc.integer({ min: 1, max: 30 }),
        loop: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(preview, fc.boolean(), (p, http) => {
        const body = http
          ? { type: "video-preview", input: "https://example.com/a.mp4", options: p }
          : { type: "videoPreview", params: { url: "https://example.com/a.mp4", ...p } };
        const result = parseCreateJob(JSON.parse(JSON.stringify(body)));
        expect(result).toMatchObject({ ok: true, value: { type: "videoPreview", params: { format: p.format ?? "webp", fps: p.fps ?? 10 } } });
      }),
      { numRuns: 300 },
    );
  });
});

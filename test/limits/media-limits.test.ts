import { describe, expect, it } from "vitest";
import { jobTypes } from "../../src/contract/registry.ts";
import { planIssues } from "../../src/limits/media-limits.ts";

const preview = (p: Record<string, unknown>) => jobTypes.videoPreview.params.parse({ url: "https://example.com/a.mp4", ...p });

describe("videoPreview's plan limits", () => {
  it.each([
    ["free", { duration: 10, width: 640, fps: 15 }, []],
    ["free", { duration: 10.5, width: 641, fps: 16 }, ["duration", "width", "fps"]],
    ["pro", { duration: 20, width: 960, fps: 24 }, []],
    ["pro", { duration: 21 }, ["duration"]],
    ["pro", { width: 1280, fps: 30 }, ["width", "fps"]],
    ["enterprise", { duration: 30, width: 1280, fps: 30 }, []],
  ] as const)("on %s, %j is over at %j", (plan, params, over) => {
    expect(planIssues("videoPreview", preview(params), plan).map((i) => i.path.join("."))).toEqual(over);
  });

  it("the defaults (5 s, 320 px, 10 fps) fit every plan", () => {
    for (const plan of ["free", "pro", "enterprise"] as const) expect(planIssues("videoPreview", preview({}), plan)).toEqual([]);
  });
});

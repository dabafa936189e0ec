// The plan's AV1 size limit (limits/media-limits.ts planIssues), table by table.
import { describe, expect, it } from "vitest";
import { jobTypes, type JobType } from "../../src/contract/registry.ts";
import { MEDIA_LIMITS, planIssues, withPlanDefaults } from "../../src/limits/media-limits.ts";

const url = "https://example.com/a.mp4";
const issues = (plan: "free" | "pro" | "enterprise", type: JobType, params: Record<string, unknown>) =>
  planIssues(type, jobTypes[type].params.parse({ url, ...params }), plan).map((i) => `${i.path.join(".")}: ${i.message}`);

describe("the plan's AV1 size limit", () => {
  it("grows with the plan", () => {
    expect([MEDIA_LIMITS.free.av1MaxSide, MEDIA_LIMITS.pro.av1MaxSide, MEDIA_LIMITS.enterprise.av1MaxSide]).toEqual([1280, 1920, 2560]);
  });

  it.each([
    ["free", { codec: "av1", maxWidth: 1280, maxHeight: 1280 }, []],
    ["free", { codec: "av1", maxWidth: 720, maxHeight: 1280 }, []],
    ["pro", { codec: "av1", maxWidth: 1920, maxHeight: 1080 }, []],
    ["enterprise", { codec: "av1", maxWidth: 2560, maxHeight: 1440 }, []],
    // Other codecs have no size limit, nor does AV1 refuse anything but the box.
    ["free", { codec: "h265" }, []],
    ["free", { codec: "vp9", maxWidth: 4000 }, []],
    ["free", { codec: "av1", maxWidth: 1281, maxHeight: 720 }, ["maxWidth: the free plan allows AV1 encodes of at most 1280 pixels a side, so codec \"av1\" takes maxWidth and maxHeight of 1280 or less (maxWidth is 1281) or another codec; ask for less, or move to a larger plan"]],
    // Unsaid, the box is the plan's own (withPlanDefaults), not a refusal.
    ["pro", { codec: "av1" }, []],
    ["enterprise", { codec: "av1", maxWidth: 2560, maxHeight: 2561 }, ["maxHeight: the enterprise plan allows AV1 encodes of at most 2560 pixels a side, so codec \"av1\" takes maxWidth and maxHeight of 2560 or less (maxHeight is 2561) or another codec; ask for less, or move to a larger plan"]],
  ] as const)("%s, %j: %j", (plan, params, expected) => {
    expect(issues(plan, "compressVideo", params)).toEqual(expected);
  });

  it("fills an AV1 encode's unsaid box with the plan's largest side, and leaves a said one and other codecs as they are", () => {
    const params = (p: Record<string, unknown>) => jobTypes.compressVideo.params.parse({ url, ...p });
    expect(withPlanDefaults("compressVideo", params({ codec: "av1" }), "free")).toMatchObject({ maxWidth: 1280, maxHeight: 1280 });
    expect(withPlanDefaults("compressVideo", params({ codec: "av1", maxHeight: 720 }), "pro")).toMatchObject({ maxWidth: 1920, maxHeight: 720 });
    expect(withPlanDefaults("compressVideo", params({ codec: "h264" }), "free")).toEqual(params({ codec: "h264" }));
  });

  it("leaves other job types alone", () => {
    expect(issues("free", "compressImage", { maxWidth: 16384 })).toEqual([]);
  });
});

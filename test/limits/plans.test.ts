// planIssues: what a plan refuses of a valid create, table by table.
import { describe, expect, it } from "vitest";
import { jobTypes, type JobType } from "../../src/contract/registry.ts";
import { PLAN_LIMITS, planIssues } from "../../src/limits/plans.ts";

const url = "https://example.com/a.mp4";
const issues = (plan: "free" | "pro" | "enterprise", type: JobType, params: Record<string, unknown>, prefix = "options") =>
  planIssues(plan, type, jobTypes[type].params.parse({ url, ...params }), prefix).map((i) => `${i.path}: ${i.message}`);

describe("planIssues", () => {
  it("bounds AV1 by plan, growing with the plan", () => {
    expect([PLAN_LIMITS.free.av1MaxSide, PLAN_LIMITS.pro.av1MaxSide, PLAN_LIMITS.enterprise.av1MaxSide]).toEqual([1280, 1920, 2560]);
  });

  it.each([
    ["free", { codec: "av1", maxWidth: 1280, maxHeight: 1280 }, []],
    ["free", { codec: "av1", maxWidth: 720, maxHeight: 1280 }, []],
    ["pro", { codec: "av1", maxWidth: 1920, maxHeight: 1080 }, []],
    ["enterprise", { codec: "av1", maxWidth: 2560, maxHeight: 1440 }, []],
    // Other codecs have no size limit, nor does AV1 refuse anything but the box.
    ["free", { codec: "h265" }, []],
    ["free", { codec: "vp9", maxWidth: 4000 }, []],
    ["free", { codec: "av1", maxWidth: 1281, maxHeight: 720 }, ["options.maxWidth: codec \"av1\" on the free plan encodes at most 1280 pixels a side: give maxWidth and maxHeight of 1280 or less (maxWidth is 1281), or use codec h264, h265 or vp9"]],
    ["pro", { codec: "av1" }, ["options.maxWidth: codec \"av1\" on the pro plan encodes at most 1920 pixels a side: give maxWidth and maxHeight of 1920 or less (maxWidth is not given), or use codec h264, h265 or vp9", "options.maxHeight: codec \"av1\" on the pro plan encodes at most 1920 pixels a side: give maxWidth and maxHeight of 1920 or less (maxHeight is not given), or use codec h264, h265 or vp9"]],
    ["enterprise", { codec: "av1", maxWidth: 2560, maxHeight: 2561 }, ["options.maxHeight: codec \"av1\" on the enterprise plan encodes at most 2560 pixels a side: give maxWidth and maxHeight of 2560 or less (maxHeight is 2561), or use codec h264, h265 or vp9"]],
  ] as const)("%s, %j: %j", (plan, params, expected) => {
    expect(issues(plan, "compressVideo", params)).toEqual(expected);
  });

  it("names the field where the dialect puts it, and leaves other job types alone", () => {
    expect(issues("free", "compressVideo", { codec: "av1", maxWidth: 640 }, "params")).toEqual([expect.stringMatching(/^params\.maxHeight: /)]);
    expect(issues("free", "compressImage", { maxWidth: 16384 })).toEqual([]);
  });
});

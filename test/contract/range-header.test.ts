// The one Range parser (src/net/range-header.ts), as downloads (src/files/range.ts), the
// runner's input route and the processor's loopback URL read it.
import { describe, expect, it } from "vitest";
import { decideRange } from "../../src/files/range.ts";
import { requestedRange } from "../../src/net/range-header.ts";

describe("requestedRange", () => {
  it.each([
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=100-", { start: 100, end: 999 }],
    ["bytes=900-5000", { start: 900, end: 999 }],
    ["bytes=-10", { start: 990, end: 999 }],
    ["bytes=-5000", { start: 0, end: 999 }],
    ["Bytes = 5 - 9", { start: 5, end: 9 }],
  ])("%s of 1000 bytes is %o", (header, range) => {
    expect(requestedRange(header, 1000)).toEqual(range);
  });

  it.each(["bytes=1000-", "bytes=5000-6000", "bytes=-0"])("%s of 1000 bytes is unsatisfiable", (header) => {
    expect(requestedRange(header, 1000)).toBe("unsatisfiable");
  });

  it.each([undefined, null, "", "items=0-5", "bytes=0-5,10-20", "bytes=9-5", "bytes=-", "bytes=a-b"])("%o is the whole body", (header) => {
    expect(requestedRange(header, 1000)).toBeUndefined();
  });
});

describe("decideRange, a download's answer", () => {
  it("is a part, 416 or the whole file as the parser reads the header", () => {
    expect(decideRange("bytes=10-19", 100)).toEqual({ kind: "part", offset: 10, length: 10 });
    expect(decideRange("bytes=-5", 100)).toEqual({ kind: "part", offset: 95, length: 5 });
    expect(decideRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" });
    expect(decideRange("bytes=0-5,7-9", 100)).toEqual({ kind: "whole" });
    expect(decideRange(undefined, 100)).toEqual({ kind: "whole" });
  });

  it("answers an empty file whole: it has no range to give", () => {
    expect(decideRange("bytes=0-", 0)).toEqual({ kind: "whole" });
    expect(decideRange("bytes=-5", 0)).toEqual({ kind: "whole" });
  });
});

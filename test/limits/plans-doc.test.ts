// docs/limits.md's plan tables say what src/limits/plans.ts and media-limits.ts hold: a number
// changed on one side only fails here (as tunables.test.ts holds architecture.md's tunables).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PLANS } from "../../src/contract/enums.ts";
import type { MediaLimits, PlanLimits } from "../../src/contract/usage.ts";
import { MEDIA_LIMITS } from "../../src/limits/media-limits.ts";
import { PLAN_LIMITS } from "../../src/limits/plans.ts";

const markdown = readFileSync(new URL("../../docs/limits.md", import.meta.url), "utf8");
const UNITS: Record<string, number> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** The table whose header row starts with `header`: each plan's row, its cells after the plan's name. */
function table(header: string): Map<string, string[]> {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) throw new Error(`docs/limits.md has no table starting "${header}"`);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [plan, ...cells] = line.split("|").slice(1, -1).map((cell) => cell.trim());
    rows.set(plan!, cells);
  }
  return rows;
}

/** The numbers a cell starts with, in order: `1,000` is 1000, `256 MiB` is bytes, `1080p` is 1080. */
function numbers(cell: string): number[] {
  return [...cell.matchAll(/(\d{1,3}(?:,\d{3})+|\d+)(?:\s*(KiB|MiB|GiB)\b)?/g)].map((m) => Number(m[1]!.replaceAll(",", "")) * (m[2] ? UNITS[m[2]]! : 1));
}

/** Each column of a table, by the numbers of the plan's limits it shows (only the first ones of a cell are read). */
function expectTable(header: string, columns: ((plan: (typeof PLANS)[number]) => number[])[]) {
  const rows = table(header);
  expect([...rows.keys()]).toEqual([...PLANS]);
  for (const plan of PLANS) {
    const cells = rows.get(plan)!;
    expect(cells.length, `${plan}: columns`).toBe(columns.length);
    columns.forEach((column, i) => {
      const expected = column(plan);
      expect(numbers(cells[i]!).slice(0, expected.length), `${plan}, column ${i + 2}: "${cells[i]}"`).toEqual(expected);
    });
  }
}

const jobs = (key: keyof PlanLimits) => (plan: (typeof PLANS)[number]) => [PLAN_LIMITS[plan][key]];
const media =
  (...keys: (keyof MediaLimits)[]) =>
  (plan: (typeof PLANS)[number]) =>
    keys.map((key) => MEDIA_LIMITS[plan][key]);

describe("docs/limits.md", () => {
  it("states each plan's job limits as src/limits/plans.ts has them", () => {
    expectTable("| plan | jobs processing at once | jobs created per hour |", [jobs("concurrentJobs"), jobs("jobsPerHour"), jobs("maxFanout")]);
  });

  it("states each plan's upload limits as src/limits/plans.ts has them", () => {
    expectTable("| plan | largest upload | uploads created per hour | resumable uploads unfinished at once |", [jobs("maxUploadBytes"), jobs("uploadsPerHour"), jobs("openUploads")]);
  });

  it("states each plan's media limits as src/limits/media-limits.ts has them", () => {
    expectTable("| plan | AV1 encodes: largest side |", [
      media("av1MaxSide"),
      media("adaptiveRenditions", "adaptiveMaxHeight"),
      media("storyboardTiles", "storyboardTileWidth"),
      media("previewDurationS", "previewWidth", "previewFps"),
      media("concatInputs"),
    ]);
  });
});

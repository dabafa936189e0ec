// How the benchmark report writes numbers and tables (report.ts, chart.ts).
import type { LoadResult } from "./api-load.ts";

export const ms = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n).toLocaleString("en-US")} ms`);
/** A time added, signed: "+52 ms", or "−22 ms" where the service was the faster. */
export const addedMs = (n: number) => (n < 0 ? `−${ms(-n)}` : `+${ms(n)}`);
export const mb = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(0)} kB`);
export const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map((h) => (/^(type|route|setting|organization|section|target|what)/i.test(h) ? "---" : "--:")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

/** The load result of one target and route. */
export function find(rows: LoadResult[], target: LoadResult["target"], route: LoadResult["route"]) {
  return rows.find((r) => r.target === target && r.route === route)!;
}

// The chart of docs/benchmarks.png, drawn as SVG from one run's measurements (report.ts
// renders it to PNG).
import { addedMs, find, ms } from "./format.ts";
import type { OverheadRow } from "./overhead.ts";
import type { Results } from "./report.ts";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/**
 * A row's name: its type and input length, and where other rows share both, the options
 * that set it apart ("gif", "watermark").
 */
function rowLabel(o: OverheadRow, rows: OverheadRow[]): string {
  const group = rows.filter((p) => p.type === o.type && p.short === o.short);
  const keys = [...new Set(group.flatMap((p) => Object.keys(p.options)))];
  const differing = keys.filter((k) => new Set(group.map((p) => JSON.stringify(p.options[k]))).size > 1);
  const marks = differing.flatMap((k) => (o.options[k] === undefined ? [] : [typeof o.options[k] === "string" ? o.options[k] : k]));
  return `${o.type}${marks.length ? ` ${marks.join(", ")}` : ""} (${o.short ? "short" : "long"})`;
}

/** A 2 × 2 chart: overhead ratio, API req/s, dispatch latency distribution, concurrency against plan. */
export function chartSvg(r: Results): string {
  const W = 1400;
  const H = 920;
  const font = `font-family="DejaVu Sans, sans-serif"`;
  const parts: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`, `<rect width="100%" height="100%" fill="#fff"/>`];
  const text = (x: number, y: number, s: string, o: { size?: number; anchor?: string; weight?: string; fill?: string } = {}) =>
    parts.push(`<text x="${x}" y="${y}" ${font} font-size="${o.size ?? 14}" text-anchor="${o.anchor ?? "start"}" font-weight="${o.weight ?? "normal"}" fill="${o.fill ?? "#222"}">${esc(s)}</text>`);
  const panel = (x: number, y: number, title: string) => {
    parts.push(`<rect x="${x}" y="${y}" width="670" height="430" fill="#fafafa" stroke="#ddd"/>`);
    text(x + 16, y + 28, title, { size: 17, weight: "bold" });
  };
  const blue = "#2b6cb0";
  const orange = "#dd6b20";

  // A: service ÷ direct per job type.
  if (r.overhead) {
    const [x0, y0] = [20, 20];
    panel(x0, y0, "1. Job time (server) ÷ direct tool time (median)");
    const rows = r.overhead;
    const max = Math.max(1.5, ...rows.map((o) => o.ratio)) * 1.1;
    const left = x0 + 205;
    const width = 300;
    const scale = (v: number) => left + (v / max) * width;
    // The rows share the panel's 350 px: 28 px each while they fit, closer (and smaller) beyond 12.
    const pitch = Math.min(28, 350 / rows.length);
    const size = pitch >= 24 ? 13 : 11;
    rows.forEach((o, i) => {
      const y = y0 + 50 + i * pitch;
      const color = o.met === false ? orange : blue;
      text(left - 10, y + pitch / 2 + size / 3, rowLabel(o, rows), { anchor: "end", size });
      parts.push(`<rect x="${left}" y="${y + 2}" width="${scale(o.ratio) - left}" height="${pitch - 4}" fill="${color}"/>`);
      text(scale(o.ratio) + 6, y + pitch / 2 + size / 3, `${o.ratio.toFixed(2)}×  (${addedMs(o.extraMs)})`, { size: size - 1 });
    });
    for (const v of [1, 1.03]) {
      parts.push(`<line x1="${scale(v)}" x2="${scale(v)}" y1="${y0 + 50}" y2="${y0 + 400}" stroke="#555" stroke-dasharray="${v === 1 ? "2,3" : "6,4"}"/>`);
    }
    text(scale(1) - 4, y0 + 418, "1.00 = as fast as the tool", { size: 12, anchor: "end" });
    text(scale(1.03) + 4, y0 + 418, "goal 1.03 (long video); short jobs: ≤ +60 ms", { size: 12 });
    text(x0 + 655, y0 + 28, "orange: goal missed", { size: 12, anchor: "end", fill: orange });
  }

  // B: API requests per second, service against the bare worker.
  if (r.api) {
    const api = r.api;
    const [x0, y0] = [710, 20];
    panel(x0, y0, "3. API requests/s (16 in flight)");
    const routes = ["POST /v1/jobs", "GET /v1/jobs/:id"] as const;
    const max = Math.max(...r.api.rows.map((l) => l.rps)) * 1.15;
    const base = y0 + 380;
    const height = 300;
    routes.forEach((route, i) => {
      const gx = x0 + 90 + i * 290;
      const label = { baseline: "bare Hono", floor: "floor", service: "service" } as const;
      const targets = (["baseline", "floor", "service"] as const).filter((target) => api.rows.some((l) => l.target === target));
      targets.forEach((target, k) => {
        const l = find(api.rows, target, route);
        const h = (l.rps / max) * height;
        const bx = gx + k * 80;
        parts.push(`<rect x="${bx}" y="${base - h}" width="70" height="${h}" fill="${target === "service" ? blue : target === "floor" ? "#718096" : "#a0aec0"}"/>`);
        text(bx + 35, base - h - 8, `${l.rps.toFixed(0)}`, { anchor: "middle", size: 13 });
        text(bx + 35, base + 18, label[target], { anchor: "middle", size: 12 });
      });
      text(gx + 115, base + 40, route, { anchor: "middle", weight: "bold" });
    });
    parts.push(`<line x1="${x0 + 60}" x2="${x0 + 640}" y1="${base}" y2="${base}" stroke="#555"/>`);
  }

  // C: dispatch latency, sorted (a distribution).
  if (r.dispatch) {
    const [x0, y0] = [20, 470];
    panel(x0, y0, "4. Dispatch: startedAt − createdAt, idle processor");
    const values = [...r.dispatch.server.all].sort((a, b) => a - b);
    const max = Math.max(...values) * 1.1 || 1;
    const left = x0 + 70;
    const width = 560;
    const top = y0 + 60;
    const height = 320;
    const px = (i: number) => left + (i / Math.max(1, values.length - 1)) * width;
    const py = (v: number) => top + height - (v / max) * height;
    for (let t = 0; t <= 4; t++) {
      const v = (max / 4) * t;
      parts.push(`<line x1="${left}" x2="${left + width}" y1="${py(v)}" y2="${py(v)}" stroke="#e2e2e2"/>`);
      text(left - 8, py(v) + 4, ms(v), { anchor: "end", size: 12 });
    }
    parts.push(`<polyline fill="none" stroke="${blue}" stroke-width="3" points="${values.map((v, i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(" ")}"/>`);
    text(left + width / 2, top + height + 30, `jobs sorted by latency (p50 ${ms(r.dispatch.server.p50)}, p99 ${ms(r.dispatch.server.p99)})`, { anchor: "middle", size: 13 });
  }

  // D: most jobs processing at once per organization, against its plan.
  if (r.limits) {
    const [x0, y0] = [710, 470];
    panel(x0, y0, `5. Max concurrent per organization vs plan (${r.limits.jobsPerSecond.toFixed(1)} jobs/s)`);
    const orgs = r.limits.orgs;
    const max = Math.max(...orgs.map((o) => Math.max(o.limit, o.maxProcessingApi, o.maxDownloads))) * 1.1;
    const left = x0 + 50;
    const width = 600;
    const base = y0 + 370;
    const height = 290;
    const step = width / orgs.length;
    const py = (v: number) => base - (Math.log1p(v) / Math.log1p(max)) * height;
    for (const v of [1, 2, 5, 10, 20, 50]) {
      if (v > max) continue;
      parts.push(`<line x1="${left}" x2="${left + width}" y1="${py(v)}" y2="${py(v)}" stroke="#e2e2e2"/>`);
      text(left - 6, py(v) + 4, String(v), { anchor: "end", size: 12 });
    }
    orgs.forEach((o, i) => {
      const bx = left + i * step + 4;
      const seen = Math.max(o.maxProcessingApi, o.maxDownloads);
      parts.push(`<rect x="${bx}" y="${py(seen)}" width="${step - 8}" height="${base - py(seen)}" fill="${seen > o.limit ? orange : blue}"/>`);
      parts.push(`<line x1="${bx - 2}" x2="${bx + step - 6}" y1="${py(o.limit)}" y2="${py(o.limit)}" stroke="#c53030" stroke-width="3"/>`);
      text(bx + (step - 8) / 2, base + 16, o.plan[0]!.toUpperCase(), { anchor: "middle", size: 12 });
    });
    text(left + width / 2, base + 40, "bars: most seen at once (API or downloads); red: plan limit; F/P/E = free/pro/enterprise; log scale", { anchor: "middle", size: 12 });
  }
  parts.push("</svg>");
  return parts.join("\n");
}

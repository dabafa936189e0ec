// Live refresh of running jobs. A page marks each job it shows with
// `data-live-job="<id>" data-status="<status>"` and, inside that element, a `.badge`, an
// optional `[data-live-progress]` text with a `<progress>` beside it and `[data-live-took]`.
// While any marked job is queued or processing, the script below asks LIVE_PATH for
// their state, updates what changed, and asks again after TUNABLES.dashboard.liveFirstMs,
// growing by half each time nothing changed up to liveMaxMs; it stops when nothing runs
// any more, when the session has ended, or on an answer that is not JSON. An element with `data-live-reload` (the
// job page) instead reloads the page's <main> in place when its job ends, so the result,
// previews and error appear without a full reload. The script is inline under the page's
// CSP nonce; `connect-src 'self'` lets it fetch.
import type { JobRow } from "../../db/schema.ts";
import { TUNABLES } from "../../lib/tunables.ts";
import { formatDuration } from "./format.ts";

export const LIVE_PATH = "/dashboard/live/jobs";
/** The most ids one request may ask about (a jobs page shows 25). */
export const MAX_LIVE_IDS = 50;

export interface LiveJob {
  id: string;
  status: string;
  progress: number | null;
  /** How long it ran, once it has ended. */
  took: string | null;
}

export function liveJob(row: Pick<JobRow, "id" | "status" | "progress" | "startedAt" | "completedAt">): LiveJob {
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    took: row.startedAt && row.completedAt ? formatDuration(row.completedAt - row.startedAt) : null,
  };
}

export const liveScript = `
(() => {
  const RUNNING = new Set(["queued", "processing"]);
  const FIRST_MS = ${TUNABLES.dashboard.liveFirstMs}, MAX_MS = ${TUNABLES.dashboard.liveMaxMs};
  let delay = FIRST_MS;
  const running = () => [...document.querySelectorAll("[data-live-job]")].filter((el) => RUNNING.has(el.dataset.status));
  const announce = (text) => {
    const region = document.getElementById("live-announce");
    if (region) region.textContent = text;
  };
  async function reloadMain() {
    const res = await fetch(location.href, { credentials: "same-origin", redirect: "manual" });
    if (!res.ok) return location.reload();
    const fresh = new DOMParser().parseFromString(await res.text(), "text/html").querySelector("main");
    // Scripts put in by innerHTML do not run: a fresh main with one (a stream's player) is loaded whole.
    if (fresh && fresh.querySelector("script")) return location.reload();
    if (fresh) document.querySelector("main").innerHTML = fresh.innerHTML;
  }
  function update(el, job) {
    if (el.dataset.status === job.status && el.dataset.progress === String(job.progress)) return false;
    const ended = !RUNNING.has(job.status);
    el.dataset.status = job.status;
    el.dataset.progress = String(job.progress);
    const badge = el.querySelector(".badge");
    if (badge) {
      badge.textContent = job.status;
      badge.className = "badge s-" + job.status;
    }
    const text = el.querySelector("[data-live-progress]");
    // A job page that is about to reload shows the final state from the server instead.
    if (text && !(ended && el.dataset.liveReload !== undefined)) text.textContent = job.status === "processing" && job.progress != null ? job.progress + "%" : text.dataset.liveProgress || "";
    const bar = el.querySelector("progress");
    if (bar && job.progress != null) {
      bar.value = job.progress;
      bar.hidden = false;
    }
    const took = el.querySelector("[data-live-took]");
    if (took && job.took) took.textContent = job.took;
    return true;
  }
  async function tick() {
    const watched = running();
    if (watched.length === 0) return;
    if (document.hidden) return setTimeout(tick, MAX_MS);
    const ids = [...new Set(watched.map((el) => el.dataset.liveJob))].slice(0, ${MAX_LIVE_IDS});
    let changed = false;
    try {
      const res = await fetch("${LIVE_PATH}?ids=" + encodeURIComponent(ids.join(",")), {
        credentials: "same-origin",
        redirect: "manual",
        headers: { accept: "application/json" },
      });
      // Signed out (a redirect) or refused: stop; a reload starts again. A server error: back off.
      if (res.status < 500 && (!res.ok || !(res.headers.get("content-type") || "").includes("json"))) return;
      if (res.ok) {
        for (const job of (await res.json()).jobs) {
          for (const el of document.querySelectorAll('[data-live-job="' + CSS.escape(job.id) + '"]')) {
            if (!update(el, job)) continue;
            changed = true;
            if (RUNNING.has(job.status)) continue;
            if (el.dataset.liveReload !== undefined) await reloadMain();
            announce("Job " + job.id + " is " + job.status + ".");
          }
        }
      }
    } catch {
      // A network blip: try again after the delay.
    }
    delay = changed ? FIRST_MS : Math.min(Math.round(delay * 1.5), MAX_MS);
    setTimeout(tick, delay);
  }
  if (running().length) setTimeout(tick, delay);
})();`;

// Live refresh of running jobs and workflows. A page marks each job it shows with
// `data-live-job="<id>"` (a workflow with `data-live-workflow="<id>"`), `data-status="<status>"`
// and `data-store="<store status>"`, and, inside that element, a `.badge`, an optional
// `[data-live-progress]` text with a `<progress>` beside it and `[data-live-took]`. While any
// marked job or workflow is queued or processing, or its store is pending, the script below
// asks LIVE_PATH for their state, updates what changed, and asks again after
// TUNABLES.dashboard.liveFirstMs, growing by half each time nothing changed up to liveMaxMs; it
// stops when nothing runs any more, when the session has ended, or on an answer that is not
// JSON. An element with `data-live-reload` (the job and workflow pages) instead reloads the
// page's <main> in place, once a tick, when it ends or its store moves on, so the result,
// previews, stored keys and error appear without a full reload. The script is inline under the
// page's CSP nonce; `connect-src 'self'` lets it fetch.
import type { HttpWorkflow } from "../../contract/workflow.ts";
import type { JobRow } from "../../db/schema.ts";
import { TUNABLES } from "../../lib/tunables.ts";
import { formatDuration } from "./format.ts";

export const LIVE_PATH = "/dashboard/live/jobs";
/** The most ids, of jobs and workflows, one request may ask about (a jobs page shows 25). */
export const MAX_LIVE_IDS = 50;

export interface LiveJob {
  id: string;
  status: string;
  progress: number | null;
  /** How long it ran, once it has ended. */
  took: string | null;
  /** Its store's status (docs/destinations.md), null without one or before it began. */
  store: string | null;
}

export function liveJob(row: Pick<JobRow, "id" | "status" | "progress" | "startedAt" | "completedAt" | "storeStatus">): LiveJob {
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    took: row.startedAt && row.completedAt ? formatDuration(row.completedAt - row.startedAt) : null,
    store: row.storeStatus,
  };
}

/** A workflow's state as its page shows it (its view: status and progress from its steps'). */
export function liveWorkflow(view: Pick<HttpWorkflow, "id" | "status" | "progress" | "store">): LiveJob {
  return { id: view.id, status: view.status, progress: view.progress, took: null, store: view.store?.status ?? null };
}

export const liveScript = `
(() => {
  const RUNNING = new Set(["queued", "processing"]);
  const FIRST_MS = ${TUNABLES.dashboard.liveFirstMs}, MAX_MS = ${TUNABLES.dashboard.liveMaxMs};
  let delay = FIRST_MS;
  const watched = (el) => RUNNING.has(el.dataset.status) || el.dataset.store === "pending";
  const running = () => [...document.querySelectorAll("[data-live-job], [data-live-workflow]")].filter(watched);
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
    const store = job.store || "";
    if (el.dataset.status === job.status && el.dataset.progress === String(job.progress) && (el.dataset.store || "") === store) return false;
    const ended = !RUNNING.has(job.status);
    el.dataset.status = job.status;
    el.dataset.progress = String(job.progress);
    el.dataset.store = store;
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
    const marked = running();
    if (marked.length === 0) return;
    if (document.hidden) return setTimeout(tick, MAX_MS);
    const ids = [...new Set(marked.map((el) => el.dataset.liveJob || el.dataset.liveWorkflow))].slice(0, ${MAX_LIVE_IDS});
    let changed = false;
    let reload = false;
    try {
      const res = await fetch("${LIVE_PATH}?ids=" + encodeURIComponent(ids.join(",")), {
        credentials: "same-origin",
        redirect: "manual",
        headers: { accept: "application/json" },
      });
      // Signed out (a redirect) or refused: stop; a reload starts again. A server error: back off.
      if (res.status < 500 && (!res.ok || !(res.headers.get("content-type") || "").includes("json"))) return;
      if (res.ok) {
        const body = await res.json();
        for (const [kind, states] of [["Job", body.jobs], ["Workflow", body.workflows || []]]) {
          for (const job of states) {
            const id = CSS.escape(job.id);
            for (const el of document.querySelectorAll('[data-live-job="' + id + '"], [data-live-workflow="' + id + '"]')) {
              if (!update(el, job)) continue;
              changed = true;
              if (RUNNING.has(job.status)) continue;
              if (el.dataset.liveReload !== undefined) reload = true;
              announce(kind + " " + job.id + " is " + job.status + (job.store ? "; its copy is " + job.store : "") + ".");
            }
          }
        }
        if (reload) await reloadMain();
      }
    } catch {
      // A network blip: try again after the delay.
    }
    delay = changed ? FIRST_MS : Math.min(Math.round(delay * 1.5), MAX_MS);
    setTimeout(tick, delay);
  }
  if (running().length) setTimeout(tick, delay);
})();`;

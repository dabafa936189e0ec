// The dashboard's HLS player: hls.js's light build (no alternate audio, subtitles or DRM,
// which our streams do not use), served from the Worker itself so the page's CSP
// (script-src by nonce, 'self' for connections) holds; wrangler bundles it as text
// (wrangler.toml [[rules]], typed in worker-configuration.d.ts). Public, cached a day.
import { Hono } from "hono";
import { etag } from "hono/etag";
import HLS_JS from "hls.js/dist/hls.light.min.js";

export const HLS_JS_PATH = "/dashboard/assets/hls.light.min.js";

export const playerRoutes = new Hono().get(HLS_JS_PATH, etag(), (c) =>
  c.body(HLS_JS, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" }),
);

/**
 * Plays each `<video data-hls-src>` of the page: through hls.js where Media Source
 * Extensions exist (its worker off: the CSP allows no blob: script), natively where the
 * browser plays HLS itself (Safari on iOS). The element's data-hls-state says how far it
 * got (parsed, playing, error: <details>), for the browser test and for a curious reader.
 */
export const PLAYER_SCRIPT = `
(() => {
  for (const video of document.querySelectorAll("video[data-hls-src]")) {
    const src = video.dataset.hlsSrc;
    const Hls = window.Hls;
    if (Hls && Hls.isSupported()) {
      const hls = new Hls({ enableWorker: false });
      hls.on(Hls.Events.MANIFEST_PARSED, (_, data) => { video.dataset.hlsState = "parsed"; video.dataset.hlsLevels = String(data.levels.length); });
      hls.on(Hls.Events.FRAG_LOADED, () => { video.dataset.hlsFragments = String(Number(video.dataset.hlsFragments || 0) + 1); });
      hls.on(Hls.Events.ERROR, (_, data) => { if (data.fatal) video.dataset.hlsState = "error: " + data.details; });
      hls.loadSource(src);
      hls.attachMedia(video);
    } else if (video.canPlayType("application/vnd.apple.mpegurl")) {
      video.src = src;
    } else {
      video.dataset.hlsState = "error: this browser plays no HLS";
    }
    video.addEventListener("playing", () => { video.dataset.hlsState = "playing"; });
  }
})();
`;

// A completed storyboard's scrubber on the job page: a frame showing one tile of the sprite,
// the tile under the pointer (or chosen with the arrow keys) as a player's thumbnail track
// would show it. The script is inline under the page's CSP nonce (layout.tsx) and sets
// styles through the CSSOM, which `style-src 'nonce-…'` allows where a style attribute is not.

/** The facts the scrubber needs, from a videoStoryboard result; null for any other result. */
export function storyboardOf(result: Record<string, unknown> | undefined) {
  const sprite = result?.sprite as Record<string, unknown> | undefined;
  const tile = result?.tile as Record<string, unknown> | undefined;
  if (!sprite || !tile || typeof sprite.url !== "string" || typeof result?.duration !== "number") return null;
  const numbers = [sprite.width, sprite.height, tile.width, tile.height, tile.columns, tile.count, tile.interval];
  if (!numbers.every((n) => typeof n === "number")) return null;
  return { sprite: sprite as { url: string; width: number; height: number }, tile: tile as { width: number; height: number; columns: number; count: number; interval: number }, duration: result.duration };
}

export function Storyboard(props: { board: NonNullable<ReturnType<typeof storyboardOf>> }) {
  const { sprite, tile, duration } = props.board;
  return (
    <figure
      data-storyboard=""
      data-sprite={sprite.url}
      data-sprite-width={String(sprite.width)}
      data-sprite-height={String(sprite.height)}
      data-tile-width={String(tile.width)}
      data-tile-height={String(tile.height)}
      data-columns={String(tile.columns)}
      data-count={String(tile.count)}
      data-interval={String(tile.interval)}
      data-duration={String(duration)}
    >
      <div data-storyboard-frame="" tabindex={0} role="slider" aria-label="Storyboard: move the pointer across, or use the arrow keys, to preview the video" aria-valuemin={0} aria-valuemax={tile.count - 1} aria-valuenow={0}></div>
      <figcaption data-storyboard-time="">
        {tile.count} tiles, one every {tile.interval} s
      </figcaption>
    </figure>
  );
}

export const storyboardScript = `
(() => {
  const SHOWN = 320; // the widest a tile is shown, in CSS pixels
  const clock = (t) => Math.floor(t / 60) + ":" + String(Math.floor(t % 60)).padStart(2, "0");
  const facts = (el) => {
    const n = (k) => Number(el.dataset[k]);
    return { w: n("tileWidth"), h: n("tileHeight"), cols: n("columns"), count: n("count"), interval: n("interval"), duration: n("duration"), scale: Math.min(1, SHOWN / n("tileWidth")) };
  };
  function show(el, i) {
    const f = facts(el);
    i = Math.max(0, Math.min(f.count - 1, i));
    const frame = el.querySelector("[data-storyboard-frame]");
    frame.style.backgroundPosition = -(i % f.cols) * f.w * f.scale + "px " + -Math.floor(i / f.cols) * f.h * f.scale + "px";
    frame.setAttribute("aria-valuenow", String(i));
    el.dataset.tile = String(i);
    const end = i === f.count - 1 ? f.duration : (i + 1) * f.interval;
    el.querySelector("[data-storyboard-time]").textContent = "Tile " + (i + 1) + " of " + f.count + ": " + clock(i * f.interval) + " to " + clock(end);
  }
  function setup(el) {
    if (el.dataset.tile !== undefined) return;
    const f = facts(el);
    Object.assign(el.style, { margin: "0 0 1rem" });
    Object.assign(el.querySelector("[data-storyboard-time]").style, { fontSize: ".85rem", color: "var(--muted)" });
    Object.assign(el.querySelector("[data-storyboard-frame]").style, {
      boxSizing: "content-box", // the border outside the tile, which fills the box exactly
      width: f.w * f.scale + "px",
      height: f.h * f.scale + "px",
      backgroundImage: 'url("' + el.dataset.sprite.replace(/["\\\\]/g, "\\\\$&") + '")',
      backgroundSize: Number(el.dataset.spriteWidth) * f.scale + "px " + Number(el.dataset.spriteHeight) * f.scale + "px",
      backgroundRepeat: "no-repeat",
      border: "1px solid var(--line)",
      borderRadius: "4px",
      cursor: "ew-resize",
      touchAction: "none",
    });
    show(el, 0);
  }
  const boards = () => document.querySelectorAll("[data-storyboard]");
  boards().forEach(setup);
  // The job page's live refresh replaces <main>: a board that arrives that way is set up on first sight.
  new MutationObserver(() => boards().forEach(setup)).observe(document.body, { childList: true, subtree: true });
  document.addEventListener("pointermove", (event) => {
    const frame = event.target.closest && event.target.closest("[data-storyboard-frame]");
    if (!frame) return;
    const el = frame.closest("[data-storyboard]");
    const f = facts(el);
    const box = frame.getBoundingClientRect();
    const t = Math.max(0, Math.min(1, (event.clientX - box.left) / box.width)) * f.duration;
    show(el, Math.floor(t / f.interval));
  });
  document.addEventListener("keydown", (event) => {
    const frame = event.target.closest && event.target.closest("[data-storyboard-frame]");
    if (!frame || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
    event.preventDefault();
    const el = frame.closest("[data-storyboard]");
    show(el, Number(el.dataset.tile || 0) + (event.key === "ArrowRight" ? 1 : -1));
  });
})();`;

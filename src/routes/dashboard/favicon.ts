// The site icon: a small SVG (a play triangle on the dashboard's blue), served at
// /favicon.ico, where browsers look without being told, and linked from every dashboard
// page. Browsers go by the content type, not the name, so SVG at .ico works. Public and
// cached for a week; the ETag lets a browser revalidate it for free.
import { Hono } from "hono";
import { etag } from "hono/etag";

export const FAVICON_PATH = "/favicon.ico";
const CACHE_CONTROL = "public, max-age=604800";

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0550ae"/><path d="M12 9v14l11-7z" fill="#fff"/></svg>';

export const faviconRoutes = new Hono().get(FAVICON_PATH, etag(), (c) =>
  c.body(FAVICON_SVG, 200, { "content-type": "image/svg+xml", "cache-control": CACHE_CONTROL }),
);

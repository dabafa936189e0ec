// GET /v1/files/<token>/<name>: signed downloads of outputs, streamed from R2, with
// Range support (RFC 9110 §14; a range past the end is 416, files/range.ts). A tampered, malformed or expired link is 403. A folder
// link (files/signing.ts) reads the file its path names inside the signed folder. Any
// origin may read with a valid link (CORS), so a player on the user's own site can play a
// stream: the link is the credential, as with a presigned R2 URL.
import { Hono } from "hono";
import { linkedKey, verifyLink } from "../files/signing.ts";
import { AppError } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { decideRange, type RangeDecision } from "../files/range.ts";

const gone = () => new AppError("not_found", "this output no longer exists (outputs are kept for a limited time)");

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "content-length, content-range, accept-ranges, etag",
};

export const filesRoutes = new Hono<{ Bindings: Env }>()
  // Every answer, a refusal too: a player on another site must be able to read that its link expired.
  .use("*", async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(CORS)) c.res.headers.set(name, value);
  })
  .options("/:token/:name?", (c) =>
    c.body(null, 204, { "access-control-allow-methods": "GET, HEAD", "access-control-allow-headers": "range", "access-control-max-age": "86400" }),
  )
  .get("/:token/:name?", async (c) => {
    const check = await verifyLink(c.env.FILES_SIGNING_SECRET, c.req.param("token"), Math.floor(Date.now() / 1000));
    if (!check.ok) {
      const message = check.reason === "expired" ? "this download link has expired; fetch the job again for a fresh link" : "this download link is not valid";
      throw new AppError("forbidden", message);
    }
    const key = linkedKey(check.key, c.req.param("name"));
    if (!key) throw new AppError("not_found", "this link is for a folder of files; name one of them after it, as the playlist does");
    // With a Range, the size first (R2's head), so a range past the end is 416 wherever R2 runs.
    const range = c.req.header("range");
    let decision: RangeDecision = { kind: "whole" };
    if (range !== undefined) {
      const head = await c.env.OUTPUTS.head(key);
      if (!head) throw gone();
      decision = decideRange(range, head.size);
      if (decision.kind === "unsatisfiable") return c.body(null, 416, { "content-range": `bytes */${head.size}` });
    }
    const object = await c.env.OUTPUTS.get(key, decision.kind === "part" ? { range: { offset: decision.offset, length: decision.length } } : {});
    if (!object) throw gone();

    const headers = new Headers();
    object.writeHttpMetadata(headers);
    headers.set("etag", object.httpEtag);
    headers.set("accept-ranges", "bytes");
    // A playlist published while its job runs grows (a master naming more renditions): asked for again, never kept stale.
    const grows = headers.get("content-type") === "application/vnd.apple.mpegurl";
    headers.set("cache-control", grows ? "private, no-cache" : `private, max-age=${TUNABLES.links.downloadLifetimeS}`);
    headers.set("x-content-type-options", "nosniff");
    if (decision.kind === "part") {
      headers.set("content-range", `bytes ${decision.offset}-${decision.offset + decision.length - 1}/${object.size}`);
      headers.set("content-length", String(decision.length));
      return new Response(object.body, { status: 206, headers });
    }
    headers.set("content-length", String(object.size));
    return new Response(object.body, { status: 200, headers });
  });

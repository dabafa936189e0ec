// Starts, for the Worker tests, the real processor (same code as `npm run processor`)
// and a media server that makes test inputs on request with sharp. Their URLs reach the
// Workers runtime through `provide` (see vitest.config.ts).
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import type { TestProject } from "vitest/node";
import { startProcessor } from "../../container/src/server.ts";
import { parseRange } from "./range-server.ts";

export const PROCESSOR_TOKEN = "test-processor-token-0123456789";

declare module "vitest" {
  export interface ProvidedContext {
    processorUrl: string;
    mediaUrl: string;
    webhookReceiverUrl: string;
    workerRelayUrl: string;
  }
}

/** One request the webhook receiver got; GET /recorded?id=<tag> lists them in order. */
interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A webhook receiver for src/webhooks tests. Every POST carries `?id=<tag>` and is
 * recorded under it; the path says how to answer: /ok 200, /fail-first?n=3 500 for the
 * first n requests of the tag then 200, /fail 500, /gone 410, /redirect 302 to /ok,
 * /slow?ms=… 200 after a delay.
 */
function webhookReceiver() {
  const recorded = new Map<string, RecordedRequest[]>();
  const pending = new Set<ReturnType<typeof setTimeout>>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    const tag = url.searchParams.get("id") ?? "";
    if (req.method === "GET" && url.pathname === "/recorded") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(recorded.get(tag) ?? []));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const list = recorded.get(tag) ?? [];
    list.push({ path: url.pathname, headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
    recorded.set(tag, list);
    switch (url.pathname) {
      case "/ok":
        res.writeHead(200).end("ok");
        return;
      case "/fail-first":
        res.writeHead(list.length <= Number(url.searchParams.get("n") ?? 3) ? 500 : 200).end();
        return;
      case "/fail":
        res.writeHead(500).end("receiver error");
        return;
      case "/gone":
        res.writeHead(410).end("gone");
        return;
      case "/redirect":
        res.writeHead(302, { location: `/ok?id=${encodeURIComponent(tag)}` }).end();
        return;
      case "/slow": {
        const timer = setTimeout(() => {
          pending.delete(timer);
          res.writeHead(200).end("late");
        }, Number(url.searchParams.get("ms") ?? 5000));
        pending.add(timer);
        return;
      }
      default:
        res.writeHead(404).end("not found");
    }
  });
  const close = () => {
    for (const timer of pending) clearTimeout(timer);
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { server, close };
}

/**
 * The Worker's public origin for processor-to-Worker requests (an upload's signed link,
 * the processor's pushed events): workerd under vitest has no port of its own, so this
 * server holds each request until a test file's pump fetches it (GET /__relay/next: every
 * request waiting, the body base64 in `body`), passes it to the Worker, and posts the answer back (POST
 * /__relay/respond/<id>, status and headers in x-relay-status and x-relay-headers).
 * Test files run side by side, each with its own Worker: each file's Worker is given a
 * PUBLIC_BASE_URL of its own, `<relay>/__scope/<tag>`, and its pump asks for that scope
 * only (GET /__relay/next?scope=<tag>); the prefix is removed before the request reaches
 * the Worker. A pump whose Worker does not know the request's job answers with
 * x-relay-requeue, and the request waits for another pump of the scope (at most
 * MAX_BOUNCES times). test/worker/relay-pump.ts, test/worker/helpers.ts: relayToWorker.
 */
function workerRelay() {
  const MAX_BOUNCES = 50;
  type Held = { id: number; scope: string; method: string; path: string; headers: Record<string, string>; body: string; bounces: number; res: import("node:http").ServerResponse };
  const waitingBy = new Map<string, Held[]>();
  const pollersBy = new Map<string, ((next: Held) => void)[]>();
  const waitingOf = (scope: string) => waitingBy.get(scope) ?? (waitingBy.set(scope, []), waitingBy.get(scope)!);
  const pollersOf = (scope: string) => pollersBy.get(scope) ?? (pollersBy.set(scope, []), pollersBy.get(scope)!);
  const offer = (item: Held) => {
    const poller = pollersOf(item.scope).shift();
    if (poller) poller(item);
    else waitingOf(item.scope).push(item);
  };
  const held = new Map<number, Held>();
  let counter = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://relay");
    if (req.method === "GET" && url.pathname === "/__relay/next") {
      const scope = url.searchParams.get("scope") ?? "";
      const pollers = pollersOf(scope);
      // Everything waiting in the scope at once: one round trip serves a burst of events.
      const queued = waitingOf(scope).splice(0);
      const answer = (items: Held[]) =>
        items.length
          ? res
              .writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify(items.map((item) => ({ id: item.id, method: item.method, path: item.path, headers: item.headers, body: item.body }))))
          : res.writeHead(204).end();
      if (queued.length) return answer(queued);
      const timer = setTimeout(() => {
        pollers.splice(pollers.indexOf(deliver), 1);
        answer([]);
      }, 1000);
      const deliver = (item: Held) => {
        clearTimeout(timer);
        answer([item]);
      };
      pollers.push(deliver);
      return;
    }
    const respond = /^\/__relay\/respond\/(\d+)$/.exec(url.pathname);
    if (req.method === "POST" && respond) {
      const item = held.get(Number(respond[1]));
      if (!item) return res.writeHead(404).end();
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.headers["x-relay-requeue"] && ++item.bounces < MAX_BOUNCES) {
        offer(item);
        return res.writeHead(204).end();
      }
      held.delete(Number(respond[1]));
      const headers = JSON.parse(String(req.headers["x-relay-headers"] ?? "{}")) as Record<string, string>;
      item.res.writeHead(Number(req.headers["x-relay-status"] ?? 502), headers).end(Buffer.concat(chunks));
      return res.writeHead(204).end();
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("base64");
    const scoped = /^\/__scope\/([A-Za-z0-9_-]+)(\/.*)$/.exec(req.url ?? "/");
    const item: Held = { id: ++counter, scope: scoped?.[1] ?? "", method: req.method ?? "GET", path: scoped?.[2] ?? req.url ?? "/", headers, body, bounces: 0, res };
    held.set(item.id, item);
    offer(item);
  });
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { server, close };
}

async function makeImage(params: URLSearchParams): Promise<{ body: Buffer; type: string }> {
  const width = Number(params.get("w") ?? 640);
  const height = Number(params.get("h") ?? 480);
  const format = params.get("format") ?? "jpeg";
  const noise = await sharp({ create: { width, height, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .blur(2)
    .png()
    .toBuffer();
  const image = sharp(noise);
  const body = format === "png" ? await image.png().toBuffer() : await image.jpeg({ quality: 92 }).toBuffer();
  return { body, type: format === "png" ? "image/png" : "image/jpeg" };
}

const exec = promisify(execFile);

/**
 * An H.264 + AAC MP4 of ffmpeg's test pattern and a tone, `w`×`h` (640×360), `d` seconds (4),
 * made once per shape; with `g`, a keyframe every `g` frames, with `b` (`1M`) that video
 * bitrate, and with `n` temporal grain of that strength (a file as large per second as a camera's).
 */
const videos = new Map<string, Promise<Buffer>>();
function makeVideo(params: URLSearchParams): Promise<Buffer> {
  const [w, h, d] = [Number(params.get("w") ?? 640), Number(params.get("h") ?? 360), Number(params.get("d") ?? 4)];
  const g = /^\d+$/.test(params.get("g") ?? "") ? params.get("g")! : undefined;
  const b = /^\d+[KM]$/.test(params.get("b") ?? "") ? params.get("b")! : undefined;
  const n = /^\d+$/.test(params.get("n") ?? "") ? params.get("n")! : undefined;
  const grain = n ? `,noise=alls=${n}:allf=t` : "";
  const key = `${w}x${h}x${d}${g ? `g${g}` : ""}${b ? `b${b}` : ""}${n ? `n${n}` : ""}`;
  let made = videos.get(key);
  if (!made) {
    const args = [
      "-nostdin", "-v", "error", "-f", "lavfi", "-i", `testsrc2=s=${w}x${h}:r=25:d=${d}${grain}`, "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:d=${d}`,
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", ...(g ? ["-g", g] : []), ...(b ? ["-b:v", b] : []),
      "-c:a", "aac", "-shortest", "-movflags", "+faststart", "-y",
    ];
    const file = join(tmpdir(), `media-jobs-video-${process.pid}-${key}.mp4`);
    videos.set(key, (made = exec("ffmpeg", [...args, file]).then(() => readFile(file))));
  }
  return made;
}

/**
 * What the media server saw of one tag's downloads: when each started and ended, how many
 * ran at most at once, and which are held (GET /gate) waiting for the test to release them.
 */
function downloadRecord() {
  let running = 0;
  let max = 0;
  const starts: { at: number; label: string }[] = [];
  const ends: { at: number; label: string }[] = [];
  const held: { label: string; answer: () => void }[] = [];
  return {
    start(label: string) {
      max = Math.max(max, ++running);
      starts.push({ at: Date.now(), label });
    },
    end(label: string) {
      running--;
      ends.push({ at: Date.now(), label });
    },
    hold(label: string, answer: () => void) {
      held.push({ label, answer });
    },
    release(label?: string): string[] {
      const chosen = held.filter((h) => label === undefined || h.label === label);
      for (const h of chosen) {
        held.splice(held.indexOf(h), 1);
        this.end(h.label);
        h.answer();
      }
      return chosen.map((h) => h.label);
    },
    view: () => ({ running, max, starts, ends, held: held.map((h) => h.label) }),
  };
}

export default async function setup(project: TestProject) {
  const stalled = new Set<import("node:http").ServerResponse>();
  const records = new Map<string, ReturnType<typeof downloadRecord>>();
  const recordOf = (tag: string) => records.get(tag) ?? (records.set(tag, downloadRecord()), records.get(tag)!);
  /** Bytes of /video?ranges=<tag> served so far, by tag. */
  const served = new Map<string, number>();
  const media = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://media");
    switch (url.pathname) {
      case "/image": {
        const { body, type } = await makeImage(url.searchParams);
        res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
        return;
      }
      case "/inspect": {
        // Reads an uploaded output with sharp, for tests running inside workerd.
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        try {
          const meta = await sharp(Buffer.concat(chunks), { animated: true }).metadata();
          const height = meta.pageHeight ?? meta.height;
          const body = JSON.stringify({ format: meta.format, width: meta.width, height, hasAlpha: meta.hasAlpha, orientation: meta.orientation ?? null, size: meta.size ?? null, pages: meta.pages ?? 1, loop: meta.loop ?? null });
          res.writeHead(200, { "content-type": "application/json" }).end(body);
        } catch (error) {
          res.writeHead(422, { "content-type": "application/json" }).end(JSON.stringify({ error: String(error) }));
        }
        return;
      }
      case "/video": {
        // ?cut=<fraction>: only that much of the file, its index whole (a cut-off upload).
        const whole = await makeVideo(url.searchParams);
        const body = url.searchParams.has("cut") ? whole.subarray(0, Math.round(whole.length * Number(url.searchParams.get("cut")))) : whole;
        // ?ranges=<tag>: Range requests answered 206, every byte served counted under the tag (GET /served).
        const tag = url.searchParams.get("ranges");
        const range = tag !== null ? parseRange(req.headers.range, body.length) : undefined;
        if (tag !== null) served.set(tag, served.get(tag) ?? 0);
        if (range === "unsatisfiable") {
          res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
          return;
        }
        if (range) {
          const [start, end] = range;
          served.set(tag!, served.get(tag!)! + end - start);
          res.writeHead(206, { "content-type": "video/mp4", "accept-ranges": "bytes", "content-range": `bytes ${start}-${end - 1}/${body.length}`, "content-length": end - start }).end(body.subarray(start, end));
          return;
        }
        if (tag !== null) served.set(tag, served.get(tag)! + body.length);
        res.writeHead(200, { "content-type": "video/mp4", "content-length": body.length, ...(tag !== null ? { "accept-ranges": "bytes" } : {}) }).end(body);
        return;
      }
      case "/play": {
        // Plays ?url= (an HLS link to the Worker, through the relay) with ffmpeg, as a player
        // would from the link alone: the frames decoded, the picture size, and ffmpeg's errors.
        const target = url.searchParams.get("url") ?? "";
        const args = ["-nostdin", "-v", "error", "-protocol_whitelist", "http,tcp,crypto,data", "-i", target, "-map", "0:v:0", "-f", "null", "-progress", "pipe:1", "-"];
        const run = await exec("ffmpeg", args, { timeout: 60_000 }).then(
          (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
          (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" }),
        );
        const frames = Math.max(0, ...[...run.stdout.matchAll(/^frame=(\d+)$/gm)].map((m) => Number(m[1])));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ code: run.code, frames, stderr: run.stderr.slice(-2000) }));
        return;
      }
      case "/probe": {
        // ffprobe's streams of an uploaded file (an init segment and a fragment, say), for tests running inside workerd;
        // with ?packets, the first video stream's packets too (their timestamps and keyframe flags).
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const packets = url.searchParams.has("packets") ? ["-show_entries", "packet=stream_index,pts,dts,duration,flags:stream"] : [];
        const probe = await new Promise<string>((resolve) => {
          const child = execFile("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", ...packets, "pipe:0"], { maxBuffer: 64 * 1024 * 1024 }, (_, stdout) => resolve(stdout || "{}"));
          child.stdin!.on("error", () => undefined);
          child.stdin!.end(Buffer.concat(chunks));
        });
        res.writeHead(200, { "content-type": "application/json" }).end(probe);
        return;
      }
      case "/delayed": {
        // A small image sent after `ms`, recording per `tag` when each download started
        // and ended (GET /timings).
        const record = recordOf(url.searchParams.get("tag") ?? "");
        const label = url.searchParams.get("label") ?? "";
        record.start(label);
        const { body } = await makeImage(new URLSearchParams("w=32&h=24"));
        setTimeout(() => {
          record.end(label);
          res.writeHead(200, { "content-type": "image/jpeg", "content-length": body.length }).end(body);
        }, Number(url.searchParams.get("ms") ?? 200));
        return;
      }
      case "/gate": {
        // A small image held until the test releases it (POST /release), recorded as
        // /delayed records: tests that count jobs running at once, or read the order they
        // started in, decide when each one ends instead of guessing how long it takes.
        // Recorded as started and held in one step, once its answer is ready: a download that
        // counts as started can always be released.
        const { body } = await makeImage(new URLSearchParams("w=32&h=24"));
        const record = recordOf(url.searchParams.get("tag") ?? "");
        const label = url.searchParams.get("label") ?? "";
        record.start(label);
        record.hold(label, () => res.writeHead(200, { "content-type": "image/jpeg", "content-length": body.length }).end(body));
        return;
      }
      case "/release": {
        // Answers the held requests of `tag` named by `label` (every one held, without it).
        const released = recordOf(url.searchParams.get("tag") ?? "").release(url.searchParams.get("label") ?? undefined);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ released }));
        return;
      }
      case "/served": {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ bytes: served.get(url.searchParams.get("tag") ?? "") ?? 0 }));
        return;
      }
      case "/timings": {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(recordOf(url.searchParams.get("tag") ?? "").view()));
        return;
      }
      case "/html":
        res.writeHead(200, { "content-type": "image/jpeg" }).end("<!DOCTYPE html><html><body>Sign in to continue</body></html>");
        return;
      case "/one-byte":
        res.writeHead(200, { "content-type": "image/jpeg" }).end(Buffer.from([0xff]));
        return;
      case "/stall":
        // Sends headers and a few bytes, then nothing: the job stays in its download.
        res.writeHead(200, { "content-type": "image/jpeg", "content-length": 1_000_000 });
        res.write(Buffer.alloc(10));
        stalled.add(res);
        return;
      default:
        res.writeHead(404).end("not found");
    }
  });
  await new Promise<void>((resolve) => media.listen(0, "127.0.0.1", resolve));
  const processor = await startProcessor({
    HOST: "127.0.0.1",
    PORT: "0",
    PROCESSOR_TOKEN,
    ALLOW_PRIVATE_NETWORK_INPUTS: "true",
    // Held inputs (/stall, /gate) stay held for as long as a test needs them, however slow
    // the machine: no worker test waits for the processor to give up on a silent origin.
    INPUT_IDLE_TIMEOUT_MS: "600000",
    // Tests run as root, with every attempt's tools isolated (docs/security.md): a machine where that cannot be refuses to start here.
    ISOLATION: "on",
    LOG_LEVEL: "warn",
  });
  project.provide("processorUrl", `http://127.0.0.1:${processor.port}`);
  project.provide("mediaUrl", `http://127.0.0.1:${(media.address() as AddressInfo).port}`);
  const receiver = webhookReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  project.provide("webhookReceiverUrl", `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`);
  const relay = workerRelay();
  await new Promise<void>((resolve) => relay.server.listen(0, "127.0.0.1", resolve));
  project.provide("workerRelayUrl", `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`);
  return async () => {
    await relay.close();
    for (const res of stalled) res.destroy();
    for (const record of records.values()) record.release();
    await processor.close();
    await new Promise<void>((resolve) => media.close(() => resolve()));
    await receiver.close();
  };
}

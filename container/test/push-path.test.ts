// The processor checks that its events can reach the runner (container/src/push-path.ts):
// a start that names a callback is answered with what the check found, /status reports it,
// and a route that does not work is found within the check's timeout, not a job's silence.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, processorJobState, processorStatus, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { createApp } from "../src/app.ts";
import { JobTable } from "../src/jobs.ts";
import { PushPaths } from "../src/push-path.ts";
import { startMediaServer, testConfig, until } from "./helpers.ts";

const limits = { PUSH_PATH_CHECK_TIMEOUT_MS: 300, PUSH_PATH_RECHECK_MS: 30_000 };
/** A bound that only catches a hang: many times what a check takes, under an event's 10-s timeout (EVENT_TIMEOUT_MS). */
const HANG_MS = 5_000;

describe("the push path", () => {
  let runner: Server;
  let origin: string;
  let checks = 0;
  let answer = 405;
  beforeAll(async () => {
    // What the Worker answers a GET of its event route: 405, no token needed.
    runner = createServer((req, res) => {
      if (req.method === "GET") checks++;
      res.writeHead(answer).end();
    });
    await new Promise<void>((done) => runner.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(runner.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => runner.close(() => done())));

  it("works when the runner's event route answers, and is checked once while it does", async () => {
    const paths = new PushPaths(limits);
    const before = checks;
    expect(await paths.forStart(`${origin}/internal/processor-events`)).toEqual({ ok: true, checkedAt: expect.any(Number) });
    await paths.forStart(`${origin}/internal/processor-events`);
    expect(checks - before).toBe(1);
    expect(paths.latest?.ok).toBe(true);
  });

  it("is broken when the host does not resolve, the connection is refused, or the route answers 5xx, and says why", async () => {
    const paths = new PushPaths(limits);
    const started = Date.now();
    // RFC 6761: .invalid never resolves.
    const unresolved = await paths.forStart("http://runner.media-jobs.invalid/internal/processor-events");
    expect(unresolved).toMatchObject({ ok: false, error: expect.stringMatching(/ENOTFOUND|EAI_AGAIN|no answer within/) });
    // A start waits for the check at most its timeout: this bound only catches a check that hangs.
    expect(Date.now() - started).toBeLessThan(HANG_MS);
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    expect(await paths.forStart(`http://127.0.0.1:${port}/internal/processor-events`)).toMatchObject({ ok: false, error: "ECONNREFUSED" });
    answer = 502;
    try {
      expect(await paths.check(`${origin}/internal/processor-events`)).toMatchObject({ ok: false, error: "the runner's origin answered 502" });
    } finally {
      answer = 405;
    }
  });

  it("is found again after a failed push, once for pushes that fail together", async () => {
    const paths = new PushPaths(limits);
    const url = `${origin}/internal/processor-events`;
    await paths.forStart(url);
    const before = checks;
    paths.pushFailed(url);
    paths.pushFailed(url);
    await paths.check(url);
    expect(checks - before).toBe(1);
  });

  it("known broken, no output is uploaded: the attempt completes at once and leaves them for the runner to copy", async () => {
    // A runner whose event route answers 502: the check finds it broken. It records what reaches it.
    const asked: string[] = [];
    const broken = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(req.method === "GET" ? 502 : 204).end();
    });
    await new Promise<void>((done) => broken.listen(0, "127.0.0.1", done));
    const media = await startMediaServer();
    try {
      const brokenOrigin = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
      const config = await testConfig({ PUSH_PATH_CHECK_TIMEOUT_MS: "300" });
      const table = new JobTable(config);
      const url = `${brokenOrigin}/internal/processor-events`;
      expect((await table.pushPaths.forStart(url)).ok).toBe(false);
      const image = media.serve("/image.jpg", await sharp({ create: { width: 64, height: 48, channels: 3, background: "#4a7" } }).jpeg().toBuffer(), "image/jpeg");
      table.start({ id: "broken_1.1", type: "compressImage", params: { url: image, format: "webp" } as never, callback: { url, token: "t".repeat(43), outputs: `${brokenOrigin}/internal/processor-outputs/broken_1.1` } });
      await until(() => (table.get("broken_1.1")?.state === "running" ? undefined : true), "the attempt to end");
      const state = table.get("broken_1.1");
      expect(state).toMatchObject({ state: "completed", outputs: [{ name: "image.webp" }] });
      // No try at the route: no upload reached it (the check's GET and the end's push did).
      expect(asked.filter((line) => line.startsWith("PUT"))).toEqual([]);
      expect((state as { timings: { storeOutputMs: number } }).timings.storeOutputMs).toBeLessThan(HANG_MS);
      expect(table.output("broken_1.1", "image.webp")).toBeDefined();
    } finally {
      broken.closeAllConnections();
      await new Promise<void>((done) => broken.close(() => done()));
      await media.close();
    }
  });

  it("a route that swallows requests: an upload unanswered for the check's timeout has it checked, found broken, and given up", async () => {
    // Takes connections and never answers, as a blackholed route does; counts the uploads.
    let puts = 0;
    const silent = createServer((req) => {
      if (req.method === "PUT") puts++;
    });
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    const media = await startMediaServer();
    try {
      const silentOrigin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      // An upload's own timeout far beyond the check's: only the check can end this one soon.
      const config = await testConfig({ PUSH_PATH_CHECK_TIMEOUT_MS: "300", EVENT_TIMEOUT_MS: "60000" });
      const table = new JobTable(config);
      const url = `${silentOrigin}/internal/processor-events`;
      const image = media.serve("/image.jpg", await sharp({ create: { width: 64, height: 48, channels: 3, background: "#4a7" } }).jpeg().toBuffer(), "image/jpeg");
      // Not known yet: the start does not wait for a check here, the uploads find out.
      table.start({ id: "silent_1.1", type: "compressImage", params: { url: image, format: "webp" } as never, callback: { url, token: "t", outputs: `${silentOrigin}/internal/processor-outputs/silent_1.1` } });
      await until(() => (table.get("silent_1.1")?.state === "running" ? undefined : true), "the attempt to end", 30_000);
      const state = table.get("silent_1.1") as { state: string; timings: { storeOutputMs: number } };
      expect(state.state).toBe("completed");
      // About two check timeouts (the doubt, then the check), not the upload's 60 s: the one
      // try was given up, not timed out and sent again.
      expect(state.timings.storeOutputMs).toBeLessThan(30_000);
      expect(puts).toBe(1);
      expect(table.pushPaths.brokenSignal(url).aborted).toBe(true);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((done) => silent.close(() => done()));
      await media.close();
    }
  });

  it("comes with the answer to a start that names a callback, and in /status", async () => {
    const media = await startMediaServer();
    try {
      const config = await testConfig();
      const app = createApp(config, new JobTable(config));
      const headers = { "content-type": "application/json", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };
      const callback = { url: "http://runner.media-jobs.invalid/internal/processor-events", token: "t".repeat(43), outputs: "http://runner.media-jobs.invalid/internal/processor-outputs/p_1.1" };
      const res = await app.request("/jobs", { method: "POST", headers, body: JSON.stringify({ id: "p_1.1", type: "compressImage", params: { url: media.url("/missing.png") }, callback }) });
      expect(res.status).toBe(202);
      const state = processorJobState.parse(await res.json());
      expect(state).toMatchObject({ state: "running", pushPath: { ok: false, error: expect.any(String) } });
      const status = processorStatus.parse(await (await app.request("/status")).json());
      expect(status.pushPath).toMatchObject({ ok: false });
      // /healthz/processor has the route to its event URL checked now; nothing but that path is fetched.
      const asked = async (url: string) => processorStatus.parse(await (await app.request(`/status?checkPushPath=${encodeURIComponent(url)}`)).json()).pushPath;
      const before = checks;
      expect(await asked(`${origin}/internal/processor-events`)).toMatchObject({ ok: true });
      expect(checks - before).toBe(1);
      await asked(`${origin}/admin/anything`);
      await asked(`file:///etc/passwd`);
      expect(checks - before).toBe(1);
    } finally {
      await media.close();
    }
  });
});

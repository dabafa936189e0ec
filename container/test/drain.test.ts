// SIGTERM drains the processor (container/src/drain.ts, jobs.ts `drain`): a new attempt is
// refused with 503 draining while one it has still answers, /status says draining, a running
// job goes on to its end and its final state is pushed before the process exits; at the
// drain's deadline what still runs is handed back (cancelled, handedBack); a second signal
// exits at once.
import { EventEmitter } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER, processorStatus, type ProcessorJobState } from "../../src/contract/processor-protocol.ts";
import { drainOnSignals } from "../src/drain.ts";
import { JobTable } from "../src/jobs.ts";
import { startProcessor } from "../src/server.ts";
import { testConfig, until } from "./helpers.ts";

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/**
 * An input whose body is held until `release()`: the job stays running (fetching its input)
 * as long as the test wants. And the runner's callback, recording every pushed state and upload.
 */
async function fixtures() {
  const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#48a" } }).jpeg().toBuffer();
  const held: ServerResponse[] = [];
  let released = false;
  const input = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": image.length });
    if (released) res.end(image);
    else held.push(res);
  });
  const pushed: ProcessorJobState[] = [];
  const uploads: string[] = [];
  // While `holdFinals` is set, a final state's push is answered only by answerFinals().
  let holdFinals = false;
  const heldFinals: (() => void)[] = [];
  const callback = createServer(async (req, res) => {
    // The processor's push-path check (container/src/push-path.ts) GETs the event URL: the Worker answers 405.
    if (req.method === "GET") return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === "PUT") uploads.push(req.url ?? "");
    else pushed.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ProcessorJobState);
    if (holdFinals && req.method === "POST" && pushed.at(-1)?.state !== "running") await new Promise<void>((answer) => heldFinals.push(answer));
    res.writeHead(req.method === "PUT" ? 201 : 204).end();
  });
  const inputUrl = `${await listen(input)}/image.jpg`;
  const origin = await listen(callback);
  return {
    inputUrl,
    pushed,
    uploads,
    requests: () => held.length,
    holdFinals: () => void (holdFinals = true),
    heldFinals: () => heldFinals.length,
    answerFinals: () => heldFinals.splice(0).forEach((answer) => answer()),
    release() {
      released = true;
      for (const res of held.splice(0)) res.end(image);
    },
    start: (id: string) => ({
      id,
      type: "compressImage",
      params: { url: inputUrl, format: "webp" },
      callback: { url: `${origin}/internal/processor-events`, token: "a".repeat(43), outputs: `${origin}/internal/processor-outputs/${id}` },
    }),
    async close() {
      for (const server of [input, callback]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** A stand-in for `process`: signals are emitted by the test, exits recorded. */
function signalTarget() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  return { target: { on: (signal: string, listener: () => void) => emitter.on(signal, listener), exit: (code: number) => void exits.push(code) }, emit: (s: string) => emitter.emit(s), exits };
}

describe("SIGTERM drains the processor", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function processor(drainMs: number) {
    const config = await testConfig();
    const started = await startProcessor({ WORK_DIR: config.workDir, PORT: "0", ALLOW_PRIVATE_NETWORK_INPUTS: "true", DRAIN_TIMEOUT_MS: String(drainMs), DRAIN_RELEASE_WAIT_MS: "0", HEARTBEAT_MS: "600000", PROGRESS_REPORT_MS: "600000" });
    const base = `http://127.0.0.1:${started.port}`;
    const headers = { "content-type": "application/json", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };
    const post = (body: unknown) => fetch(`${base}/jobs`, { method: "POST", headers, body: JSON.stringify(body) });
    let closed = false;
    const close = started.close;
    started.close = async () => {
      closed = true;
      await close();
    };
    cleanups.push(async () => {
      if (!closed) await close();
    });
    return { started, base, post, isClosed: () => closed };
  }

  it("refuses new attempts with 503 draining, finishes and reports the running one, then closes and exits 0", async () => {
    const f = await fixtures();
    cleanups.push(f.close);
    const { started, base, post, isClosed } = await processor(60_000);
    const signals = signalTarget();
    const drain = drainOnSignals(started, signals.target);

    expect((await post(f.start("running-1"))).status).toBe(202);
    await until(() => (f.requests() > 0 ? true : undefined), "the job to fetch its input");
    signals.emit("SIGTERM");

    const refused = await post(f.start("new-1"));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "draining", message: expect.any(String) });
    // The attempt it has still answers its state, to a start sent again and to a GET.
    const again = await post(f.start("running-1"));
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ id: "running-1", state: "running" });
    const status = processorStatus.parse(await (await fetch(`${base}/status`)).json());
    expect(status).toMatchObject({ draining: true, running: 1 });
    expect(started.jobs.get("new-1")).toBeUndefined();

    // Still running: the drain waits, the process does not exit.
    expect(signals.exits).toEqual([]);
    expect(isClosed()).toBe(false);

    f.release();
    await drain();
    expect(f.uploads).toEqual(["/internal/processor-outputs/running-1/image.webp"]);
    expect(f.pushed.map((s) => s.state)).toEqual(["completed"]);
    expect(isClosed()).toBe(true);
    expect(signals.exits).toEqual([0]);
  });

  it("hands back what still runs at the deadline: cancelled with handedBack, pushed before the exit", async () => {
    const f = await fixtures();
    cleanups.push(f.close);
    const { started, post } = await processor(300);
    const signals = signalTarget();
    const drain = drainOnSignals(started, signals.target);

    expect((await post(f.start("slow-1"))).status).toBe(202);
    await until(() => (f.requests() > 0 ? true : undefined), "the job to fetch its input");
    const t0 = Date.now();
    signals.emit("SIGTERM");
    await drain();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(f.pushed).toEqual([{ id: "slow-1", state: "cancelled", progress: 0, handedBack: true }]);
    expect(started.jobs.get("slow-1")).toEqual({ id: "slow-1", state: "cancelled", progress: 0, handedBack: true });
    expect(f.uploads).toEqual([]);
    expect(signals.exits).toEqual([0]);
  });

  it("exits at once on a second signal", async () => {
    const f = await fixtures();
    cleanups.push(f.close);
    const { started, post } = await processor(60_000);
    const signals = signalTarget();
    drainOnSignals(started, signals.target);
    expect((await post(f.start("held-1"))).status).toBe(202);
    await until(() => (f.requests() > 0 ? true : undefined), "the job to fetch its input");
    signals.emit("SIGTERM");
    expect(signals.exits).toEqual([]);
    signals.emit("SIGINT");
    expect(signals.exits).toEqual([1]);
    f.release();
  });

  it("with nothing running, exits at once", async () => {
    const { started } = await processor(60_000);
    const signals = signalTarget();
    const drain = drainOnSignals(started, signals.target);
    signals.emit("SIGTERM");
    await drain();
    expect(signals.exits).toEqual([0]);
  });

  it("waits for the final push of a job that ended just before the signal", async () => {
    const f = await fixtures();
    cleanups.push(f.close);
    f.holdFinals();
    f.release();
    const jobs = new JobTable(await testConfig({ DRAIN_RELEASE_WAIT_MS: "0" }));
    jobs.start(f.start("ended-1") as never);
    await until(() => (f.heldFinals() > 0 ? true : undefined), "the job's final push to be on its way");
    const draining = jobs.drain(60_000);
    // One turn of the event loop: a drain that did not wait for that push has resolved by now.
    const early = await Promise.race([draining.then(() => "resolved"), new Promise((resolve) => setImmediate(() => resolve("pending")))]);
    expect(early).toBe("pending");
    f.answerFinals();
    await draining;
    expect(f.pushed.map((state) => state.state)).toEqual(["completed"]);
  });
});

// The processor pushes an attempt's events to the runner's callback: progress coalesced to
// at most one push per PROGRESS_REPORT_MS from the start (a shorter job pushes only its
// end), the final state at once with its timings, each
// with the attempt's token; a 409 (the runner let the attempt go) stops the pushes. Before
// the final state it uploads each output to the callback's `outputs` (PUT, with its length
// and type): an upload cut off is sent again, one refused with 409 ends the attempt, one
// that keeps failing is left for the runner to copy.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER, protocolMismatchBody, type ProcessorJobState } from "../../src/contract/processor-protocol.ts";
import { EventPusher, MAX_PROGRESS_PUSHES } from "../src/events.ts";
import { JobTable } from "../src/jobs.ts";
import { startMediaServer, testConfig, until } from "./helpers.ts";

type Received =
  | { kind: "event"; headers: IncomingHttpHeaders; state: ProcessorJobState }
  | { kind: "upload"; headers: IncomingHttpHeaders; path: string; body: Buffer };

/** What a Worker of another protocol version answers to anything the processor sends. */
const OTHER_VERSION = { status: 409, body: protocolMismatchBody({ processor: PROCESSOR_PROTOCOL_VERSION, worker: PROCESSOR_PROTOCOL_VERSION + 1 }) };

/**
 * The runner's side: answers each event with `event(n)` and each upload with `upload(n)`, n
 * counted per kind; "cut" drops the connection, "hold" never answers, a body goes as JSON.
 * `eventAnswerMs`: each event is answered that long after it arrived, as by a busy runner.
 */
function callbackServer(event: (n: number) => number | typeof OTHER_VERSION, upload: (n: number) => number | "cut" | "hold", eventAnswerMs = 0) {
  const received: Received[] = [];
  let events = 0;
  let uploads = 0;
  const server = createServer(async (req, res) => {
    if (req.method === "PUT") {
      const answer = upload(++uploads);
      if (answer === "cut") return void req.socket.destroy();
      if (answer === "hold") return void received.push({ kind: "upload", headers: req.headers, path: req.url ?? "", body: Buffer.alloc(0) });
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ kind: "upload", headers: req.headers, path: req.url ?? "", body: Buffer.concat(chunks) });
      return void res.writeHead(answer).end();
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ kind: "event", headers: req.headers, state: JSON.parse(Buffer.concat(chunks).toString("utf8")) as ProcessorJobState });
    const answer = event(++events);
    if (eventAnswerMs > 0) await new Promise((resolve) => setTimeout(resolve, eventAnswerMs));
    if (typeof answer === "number") return void res.writeHead(answer).end();
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  return { server, received };
}

const states = (received: Received[]) => received.flatMap((r) => (r.kind === "event" ? [r.state.state] : []));
const uploads = (received: Received[]) => received.filter((r): r is Extract<Received, { kind: "upload" }> => r.kind === "upload");

describe("pushed events and uploaded outputs", () => {
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let image: string;
  beforeAll(async () => {
    media = await startMediaServer();
    const bytes = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#4a7" } }).jpeg().toBuffer();
    image = media.serve("/image.jpg", bytes, "image/jpeg");
  });
  afterAll(() => media.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function run(
    event: (n: number) => number | typeof OTHER_VERSION,
    upload: (n: number) => number | "cut" | "hold" = () => 201,
    options: { waitForEnd: boolean; reportEveryMs?: number; eventAnswerMs?: number } = { waitForEnd: true },
  ) {
    const callback = callbackServer(event, upload, options.eventAnswerMs);
    await new Promise<void>((resolve) => callback.server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(callback.server.address() as AddressInfo).port}`;
    // Unless asked, report periods far longer than the job: the only push is the end.
    const table = new JobTable(await testConfig({ PROGRESS_REPORT_MS: String(options.reportEveryMs ?? 600_000), HEARTBEAT_MS: "600000" }));
    const id = `events_${process.pid}_${Math.random().toString(36).slice(2)}`;
    const outputs = `${origin}/internal/processor-outputs/${id}`;
    table.start({ id, type: "compressImage", params: { url: image, format: "webp" } as never, callback: { url: `${origin}/internal/processor-events`, token: "attempt-token", outputs } });
    if (options.waitForEnd) await until(() => (table.get(id)?.state === "running" ? undefined : true), "the job to end");
    const close = () => {
      callback.server.closeAllConnections();
      return new Promise<void>((r) => callback.server.close(() => r()));
    };
    return { id, table, received: callback.received, close };
  }

  it("uploads the output, then pushes the final state with its timings, each with the attempt's token", async () => {
    const { id, received, close } = await run(() => 204);
    try {
      await until(() => (states(received).at(-1) === "completed" ? true : undefined), "the final push");
      // Shorter than a report period: no progress push, only the end.
      expect(received.map((r) => (r.kind === "event" ? r.state.state : "upload"))).toEqual(["upload", "completed"]);
      for (const r of received) expect(r.headers).toMatchObject({ authorization: "Bearer attempt-token", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) });
      const final = (received.at(-1) as Extract<Received, { kind: "event" }>).state as Extract<ProcessorJobState, { state: "completed" }>;
      expect(final).toMatchObject({ id, state: "completed", progress: 100, outputs: [{ name: "image.webp", contentType: "image/webp" }] });
      expect(final.timings).toEqual({ fetchInputMs: expect.any(Number), processMs: expect.any(Number), storeOutputMs: expect.any(Number) });
      const [put] = uploads(received);
      expect(put!.path).toBe(`/internal/processor-outputs/${id}/image.webp`);
      expect(put!.headers["content-type"]).toBe("image/webp");
      expect(Number(put!.headers["content-length"])).toBe(final.outputs[0]!.size);
      expect(put!.body.length).toBe(final.outputs[0]!.size);
      expect(await sharp(put!.body).metadata()).toMatchObject({ format: "webp", width: 640, height: 480 });
    } finally {
      await close();
    }
  });

  it("sends an upload again when its connection is cut", async () => {
    const { received, close } = await run(() => 204, (n) => (n === 1 ? "cut" : 201));
    try {
      await until(() => (states(received).at(-1) === "completed" ? true : undefined), "the final push");
      expect(uploads(received)).toHaveLength(1);
      expect((await sharp(uploads(received)[0]!.body).metadata()).format).toBe("webp");
    } finally {
      await close();
    }
  });

  it("still completes when an upload keeps failing, keeping the output for the runner to copy", async () => {
    const { id, table, received, close } = await run(() => 204, () => 503);
    try {
      await until(() => (states(received).at(-1) === "completed" ? true : undefined), "the final push");
      // OUTPUT_UPLOAD_TRIES (3) tries, then the completion; the file stays to be copied.
      expect(uploads(received)).toHaveLength(3);
      const output = table.output(id, "image.webp")!;
      expect((await sharp(output.path).metadata()).format).toBe("webp");
    } finally {
      await close();
    }
  });

  it("ends the attempt cancelled, without pushing its end, when the runner refuses an upload (409)", async () => {
    const { id, table, received, close } = await run(() => 204, () => 409);
    try {
      expect(table.get(id)?.state).toBe("cancelled");
      expect(uploads(received)).toHaveLength(1);
      expect(states(received)).toEqual([]);
      expect(table.output(id, "image.webp")).toBeUndefined();
    } finally {
      await close();
    }
  });

  it("stops an upload under way when the attempt is cancelled, and reports no completion", async () => {
    const { id, table, received, close } = await run(() => 204, () => "hold", { waitForEnd: false });
    try {
      await until(() => (uploads(received).length === 1 ? true : undefined), "the upload to start");
      expect((await table.cancel(id))?.state).toBe("cancelled");
      expect(states(received)).not.toContain("completed");
    } finally {
      await close();
    }
  });

  it("pushes progress once a report period has passed since the start", async () => {
    const { received, close } = await run(() => 204, () => 201, { waitForEnd: true, reportEveryMs: 1 });
    try {
      await until(() => (states(received).at(-1) === "completed" ? true : undefined), "the final push");
      expect(states(received)[0]).toBe("running");
    } finally {
      await close();
    }
  });

  it("stops pushing and uploading for an attempt once the runner answers 409", async () => {
    // A slow refusal: the job's output is ready before it comes, and its upload waits for it.
    const { table, id, received, close } = await run(() => 409, () => 201, { waitForEnd: true, reportEveryMs: 1, eventAnswerMs: 300 });
    try {
      // The first push (progress) was refused: nothing is uploaded and the end is not pushed.
      expect(received.map((r) => r.kind)).toEqual(["event"]);
      expect(table.get(id)?.state).toBe("cancelled");
      await table.remove(id);
      expect(states(received)).toEqual(["running"]);
    } finally {
      await close();
    }
  });

  it("stops pushing to a runner of another protocol version, and logs both versions", async () => {
    const lines = vi.spyOn(console, "log");
    const { table, id, received, close } = await run(() => OTHER_VERSION, () => 201, { waitForEnd: true, reportEveryMs: 1, eventAnswerMs: 300 });
    try {
      expect(received.map((r) => r.kind)).toEqual(["event"]);
      expect(table.get(id)?.state).toBe("cancelled");
      const logged = lines.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>).filter((l) => /another protocol version/.test(String(l.message)));
      expect(logged).toEqual([expect.objectContaining({ level: "error", processor: PROCESSOR_PROTOCOL_VERSION, worker: PROCESSOR_PROTOCOL_VERSION + 1 })]);
      await table.remove(id);
    } finally {
      await close();
    }
  });
});

// Each push is a Durable Object request to the job's runner, so what an attempt pushes must
// not grow with how often its tool reports progress (docs/capacity.md: costs).
describe("how many events an attempt pushes", () => {
  async function pusher(config: Record<string, string>) {
    const callback = callbackServer(() => 204, () => 201);
    await new Promise<void>((resolve) => callback.server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(callback.server.address() as AddressInfo).port}`;
    const id = `count_${process.pid}_${Math.random().toString(36).slice(2)}.1`;
    let state: ProcessorJobState = { id, state: "running", progress: 0 };
    const events = new EventPusher({ url: `${origin}/internal/processor-events`, token: "attempt-token", outputs: `${origin}/outputs/${id}` }, await testConfig(config), () => state);
    const close = () => {
      callback.server.closeAllConnections();
      return new Promise<void>((r) => callback.server.close(() => r()));
    };
    return { events, received: callback.received, set: (next: Partial<ProcessorJobState>) => void (state = { ...state, ...next } as ProcessorJobState), close };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("pushes progress only when its whole percent rose since the last push: at most MAX_PROGRESS_PUSHES, however often it is reported", async () => {
    const { events, received, set, close } = await pusher({ PROGRESS_REPORT_MS: "1", HEARTBEAT_MS: "600000" });
    try {
      // 2,000 reports, twenty of each percent, spread over a few report periods.
      for (let i = 1; i <= 2000; i++) {
        set({ progress: Math.min(99, Math.floor(i / 20)) });
        events.progressed();
        if (i % 10 === 0) await sleep(2);
      }
      set({ state: "failed", progress: 99, error: { code: "processing_failed", message: "end of the test" } } as Partial<ProcessorJobState>);
      await events.finished();
      const pushed = received.flatMap((r) => (r.kind === "event" && r.state.state === "running" ? [r.state.progress] : []));
      expect(pushed.length).toBeGreaterThan(10);
      expect(pushed.length).toBeLessThanOrEqual(MAX_PROGRESS_PUSHES);
      // Each push carries a higher percent than the one before.
      for (let i = 1; i < pushed.length; i++) expect(pushed[i]).toBeGreaterThan(pushed[i - 1]!);
      expect(states(received).at(-1)).toBe("failed");
    } finally {
      events.stop();
      await close();
    }
  });

  it("pushes nothing when progress is reported again at the same percent", async () => {
    const { events, received, set, close } = await pusher({ PROGRESS_REPORT_MS: "1", HEARTBEAT_MS: "600000" });
    try {
      set({ progress: 7 });
      for (let i = 0; i < 50; i++) {
        events.progressed();
        await sleep(2);
      }
      // Once stopped, finished() resolves when the pushes already queued are answered: all that went has arrived.
      events.stop();
      await events.finished();
      expect(received.map((r) => (r.kind === "event" ? r.state.progress : "upload"))).toEqual([7]);
    } finally {
      events.stop();
      await close();
    }
  });

  it("pushes a heartbeat once per HEARTBEAT_MS while nothing else goes, and none just after another push", async () => {
    // The pusher's interval and clock are driven here; its pushes go over the network as ever.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { events, received, set, close } = await pusher({ PROGRESS_REPORT_MS: "50", HEARTBEAT_MS: "100" });
    // A push carries the state as it is when it goes: each is let arrive before the state changes.
    const arrived = (n: number) => until(() => (received.length >= n ? true : undefined), `push ${n}`);
    try {
      vi.advanceTimersByTime(99);
      vi.advanceTimersByTime(1); // 100 ms: a heartbeat
      await arrived(1);
      vi.advanceTimersByTime(100); // 200 ms: another
      await arrived(2);
      vi.advanceTimersByTime(60);
      set({ progress: 5 });
      events.progressed(); // 260 ms: progress, pushed at once (a report period has passed)
      await arrived(3);
      vi.advanceTimersByTime(40); // 300 ms: 40 ms after that push, under HEARTBEAT_MS / 2: none
      vi.advanceTimersByTime(100); // 400 ms: a heartbeat
      events.stop();
      vi.advanceTimersByTime(1_000); // stopped: none
      // Once stopped, finished() resolves when the pushes already queued are answered.
      await events.finished();
      expect(received.map((r) => (r.kind === "event" ? `${r.state.state} ${r.state.progress}` : "upload"))).toEqual(["running 0", "running 0", "running 5", "running 5"]);
    } finally {
      vi.useRealTimers();
      events.stop();
      await close();
    }
  });
});

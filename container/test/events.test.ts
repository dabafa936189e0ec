// The processor pushes an attempt's events to the runner's callback: progress coalesced to
// at most one push per PROGRESS_REPORT_MS, the final state at once with its timings, each
// with the attempt's token; a 409 (the runner let the attempt go) stops the pushes.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessorJobState } from "../../src/contract/processor-protocol.ts";
import { JobTable } from "../src/jobs.ts";
import { startMediaServer, testConfig } from "./helpers.ts";

interface Received {
  headers: IncomingHttpHeaders;
  state: ProcessorJobState;
}

function callbackServer(answer: (n: number) => number) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ headers: req.headers, state: JSON.parse(Buffer.concat(chunks).toString("utf8")) as ProcessorJobState });
    res.writeHead(answer(received.length)).end();
  });
  return { server, received };
}

async function until<T>(check: () => T | undefined, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("pushed events", () => {
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let image: string;
  beforeAll(async () => {
    media = await startMediaServer();
    const bytes = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#4a7" } }).jpeg().toBuffer();
    image = media.serve("/image.jpg", bytes, "image/jpeg");
  });
  afterAll(() => media.close());

  async function run(answer: (n: number) => number) {
    const callback = callbackServer(answer);
    await new Promise<void>((resolve) => callback.server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(callback.server.address() as AddressInfo).port}/internal/processor-events`;
    // Report periods far longer than the job: the pushes are the first progress and the end.
    const table = new JobTable(await testConfig({ PROGRESS_REPORT_MS: "600000", HEARTBEAT_MS: "600000" }));
    const id = `events_${process.pid}_${Math.random().toString(36).slice(2)}`;
    table.start({ id, type: "compressImage", params: { url: image, format: "webp" } as never, callback: { url, token: "attempt-token" } });
    await until(() => (table.get(id)?.state === "running" ? undefined : true), "the job to end");
    return { id, table, received: callback.received, close: () => new Promise<void>((r) => callback.server.close(() => r())) };
  }

  it("sends the first progress, then the final state with its timings, each with the attempt's token", async () => {
    const { id, received, close } = await run(() => 204);
    try {
      await until(() => (received.at(-1)?.state.state === "completed" ? true : undefined), "the final push");
      expect(received.map((r) => r.state.state)).toEqual(["running", "completed"]);
      for (const r of received) expect(r.headers.authorization).toBe("Bearer attempt-token");
      const final = received.at(-1)!.state as Extract<ProcessorJobState, { state: "completed" }>;
      expect(final).toMatchObject({ id, state: "completed", progress: 100, outputs: [{ name: expect.any(String), contentType: "image/webp" }] });
      expect(final.timings).toEqual({ fetchInputMs: expect.any(Number), processMs: expect.any(Number) });
    } finally {
      await close();
    }
  });

  it("stops pushing an attempt once the runner answers 409", async () => {
    const { table, id, received, close } = await run(() => 409);
    try {
      // The first push was refused; the end is not pushed, but the state can still be asked for.
      await until(() => (received.length >= 1 ? true : undefined), "the first push");
      expect(table.get(id)?.state).toBe("completed");
      await table.remove(id);
      expect(received.map((r) => r.state.state)).toEqual(["running"]);
    } finally {
      await close();
    }
  });
});

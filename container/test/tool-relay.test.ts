// The tool relay (tool-relay.ts): a route answers its secret's holder only, whether it asks
// through the proxy (as ffmpeg's http does, told by `http_proxy`) or directly; a request
// without proof is asked for one, a wrong proof gets the connection closed unanswered, any
// other path nothing; closing a route cuts its connections. A real ffprobe given the
// environment an isolated tool gets (tools/spawn.ts toolEnv) reads its input through it.
import { execFile } from "node:child_process";
import http from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newRelaySecret, ToolRelay, type InputAnswer } from "../src/tool-relay.ts";
import { toolEnv } from "../src/tools/spawn.ts";

const exec = promisify(execFile);

/** A GET of `url` sent to `to` (the relay itself, as through a proxy: the whole URL as the request's target), its status, or "closed" when the connection was closed unanswered. */
function get(url: string, options: { proof?: string; to?: string } = {}): Promise<{ status: number | "closed"; body: string }> {
  const target = options.to ? new URL(options.to) : new URL(url);
  return new Promise((resolve) => {
    const req = http.get({ host: target.hostname, port: target.port, path: options.to ? url : target.pathname, headers: options.proof ? { "proxy-authorization": `Basic ${Buffer.from(options.proof).toString("base64")}` } : {} }, (res) => {
      let body = "";
      // Cut midway (a closed route): what came.
      res.setEncoding("latin1").on("data", (chunk: string) => (body += chunk)).once("close", () => resolve({ status: res.statusCode!, body }));
    });
    req.once("error", () => resolve({ status: "closed", body: "" }));
  });
}

const hello: InputAnswer = (_req, res) => void res.end("hello");

describe("the tool relay", () => {
  let relay: ToolRelay;
  let dir: string;

  beforeAll(async () => {
    relay = await ToolRelay.shared();
    dir = await mkdtemp(join(tmpdir(), "media-jobs-relay-"));
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("answers a route's secret only: asks for it, closes on a wrong one, and never relays elsewhere", async () => {
    const secret = newRelaySecret();
    const route = relay.open("/job/input", secret, hello);
    try {
      expect(route.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/job\/input$/);
      const asked = await get(route.url);
      expect(asked.status).toBe(407);
      // Through the proxy, as ffmpeg asks once told to (the whole URL as the target), and directly.
      expect(await get(route.url, { proof: `tool:${secret}`, to: route.url })).toEqual({ status: 200, body: "hello" });
      expect(await get(route.url, { proof: `anyone:${secret}` })).toEqual({ status: 200, body: "hello" });
      // Another lease's secret, one a character short, or none after the colon: closed unanswered.
      for (const proof of [`tool:${newRelaySecret()}`, `tool:${secret.slice(1)}`, "tool:", secret]) {
        expect(await get(route.url, { proof }), proof).toEqual({ status: proof === secret ? 407 : "closed", body: "" });
      }
      // Not an open proxy: another host, or a path no route has, is nothing of the relay's.
      expect((await get("http://example.com/", { proof: `tool:${secret}`, to: route.url })).status).toBe(404);
      expect((await get(`${route.url}x`, { proof: `tool:${secret}` })).status).toBe(404);
    } finally {
      route.close();
    }
    expect((await get(route.url, { proof: `tool:${secret}` })).status).toBe(404);
  });

  it("a route without a secret (isolation off) answers anyone; closing it cuts the connections reading it", async () => {
    let answered!: () => void;
    const reading = new Promise<void>((resolve) => (answered = resolve));
    const route = relay.open("/slow", undefined, (_req, res) => {
      res.writeHead(200, { "content-length": "10" }).write("12345");
      answered();
    });
    const result = get(route.url);
    await reading;
    route.close();
    expect(await result).toEqual({ status: 200, body: "12345" });
    expect((await get(route.url)).status).toBe(404);
  });

  it("ffprobe with an isolated tool's environment proves its secret once, then with each of its requests", async () => {
    const video = join(dir, "in.mp4");
    await exec("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast", "-f", "mp4", video]);
    const bytes = await readFile(video);
    const secret = newRelaySecret();
    const route = relay.open("/in.mp4", secret, (req, res) => {
      const [start, end] = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? "bytes=0-")!.slice(1).map((v, i) => (v ? Number(v) : i === 0 ? 0 : bytes.length - 1)) as [number, number];
      res.writeHead(206, { "content-length": String(end + 1 - start), "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${bytes.length}` });
      res.end(bytes.subarray(start, end + 1));
    });
    const probe = (env: NodeJS.ProcessEnv) => exec("ffprobe", ["-v", "debug", "-protocol_whitelist", "http,tcp", "-show_entries", "stream=codec_name", "-of", "csv=p=0", route.url], { env });
    try {
      const env = toolEnv({ home: dir, relaySecret: secret });
      expect(env.http_proxy).toBe(`http://tool:${secret}@${new URL(route.url).host}`);
      const { stdout, stderr } = await probe(env);
      expect(stdout.trim().split("\n")).toContain("h264");
      // ffmpeg's debug log shows each request it sent: the first without the proof (answered
      // 407), every other one (its seeks) with it.
      const requests = stderr.split("request: ").slice(1);
      expect(requests.length).toBeGreaterThanOrEqual(3);
      expect(requests.map((r) => r.includes("Proxy-Authorization: Basic"))).toEqual([false, ...requests.slice(1).map(() => true)]);
      // Without the secret, or with another lease's, the same command reads nothing.
      await expect(probe(toolEnv({ home: dir }))).rejects.toMatchObject({ stderr: expect.stringMatching(/407/) });
      await expect(probe(toolEnv({ home: dir, relaySecret: newRelaySecret() }))).rejects.toMatchObject({ stdout: "" });
    } finally {
      route.close();
    }
  });
});

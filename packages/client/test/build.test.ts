// The published package, as a user gets it: `npm pack` in packages/client gives a tarball
// that installs into an empty app with the machine's own Node (not the repository's Node
// 24) and no other package; `import` and `require` both load it and work; its types
// check in a consumer with no zod installed, for import and for require.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as source from "../src/index.ts";
import { tscErrors } from "./tsc.ts";

const root = resolve(import.meta.dirname, "../../..");
const pkg = join(root, "packages/client");
let work: string;
let app: string;
let packed: { filename: string; size: number; files: { path: string }[] };

/** The machine's Node (Debian's /usr/bin/node), not the one npm scripts run. */
function systemNode(): string {
  const candidates = ["/usr/local/bin/node", "/usr/bin/node", ...execFileSync("which", ["-a", "node"], { encoding: "utf8" }).split("\n")];
  const found = candidates.find((path) => path && !path.includes("node_modules") && existsSync(path));
  if (!found) throw new Error("no system node found; the package must be tried with a Node other than the repository's");
  return found;
}
const node = systemNode();
const npmCli = "/usr/lib/node_modules/npm/bin/npm-cli.js";

function run(command: string, args: string[], cwd: string): string {
  // The system Node first on PATH, so npm and its scripts do not pick up the repository's.
  const env = { ...process.env, PATH: `/usr/bin:/bin:${process.env.PATH ?? ""}`, npm_config_update_notifier: "false" };
  return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * A small program that uses the package: maps a job from a fake fetch, streams its events
 * over two connections (a fetch body stream, as the runtime makes it) and round-trips a
 * webhook signature.
 */
const program = (load: string) => `${load}
const queued = { id: "job_1", type: "compress-pdf", status: "queued", priority: 5, progress: null, createdAt: "2026-01-01T00:00:00.000Z" };
const streams = [
  "event: progress\\ndata: " + JSON.stringify(queued) + "\\n\\n",
  "event: end\\ndata: " + JSON.stringify({ ...queued, status: "cancelled" }) + "\\n\\n",
];
const fetch = async (url) =>
  url.endsWith("/events") ? new Response(streams.shift(), { headers: { "content-type": "text/event-stream" } }) : Response.json(queued);
(async () => {
  const client = new sdk.MediaJobsClient({ apiKey: "k", fetch });
  const job = await client.getJob("job_1");
  const events = [];
  for await (const { event, job } of client.jobEvents("job_1")) events.push(event + " " + job.status);
  const body = JSON.stringify(job);
  const headers = await sdk.signWebhook(body, "whsec_test", 1000);
  const verified = await sdk.verifyWebhook(body, headers, "whsec_test", { now: 1000 });
  console.log(JSON.stringify({ node: process.version, exports: Object.keys(sdk).filter((k) => k !== "default").sort(), job, events, same: JSON.stringify(verified) === body }));
})();
`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "media-jobs-client-pack-"));
  execFileSync(process.execPath, [join(pkg, "scripts/build.ts")], { cwd: pkg, stdio: "pipe" });
  // The build ran just above (with this Node); prepack would run it again.
  [packed] = JSON.parse(run(process.execPath, [npmCli, "pack", "--json", "--ignore-scripts", "--pack-destination", work], pkg));
  app = join(work, "app");
  execFileSync("mkdir", [app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
  run(node, [npmCli, "install", "--offline", "--no-audit", "--no-fund", join(work, packed.filename)], app);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the packed @media-jobs/client", () => {
  it(`is tried with the machine's Node, ${process.version === execFileSync(node, ["--version"], { encoding: "utf8" }).trim() ? "(the same as the repository's)" : "not the repository's"}`, () => {
    expect(Number(execFileSync(node, ["--version"], { encoding: "utf8" }).slice(1).split(".")[0])).toBeGreaterThanOrEqual(18);
  });

  it("ships only its bundles, declarations and package.json, and no dependencies", () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths).toContain("dist/index.mjs");
    expect(paths).toContain("dist/index.cjs");
    expect(paths).toContain("dist/types/index.d.ts");
    expect(paths).toContain("dist/types/index.d.cts");
    // The client's declarations at dist/types/, the contract's it reaches in dist/types/contract/.
    expect(paths.filter((p) => p.startsWith("dist/types/") && !/^dist\/types\/(contract\/)?[\w.-]+\.d\.c?ts$/.test(p))).toEqual([]);
    expect(paths.filter((p) => !/^(dist\/|package\.json$|README\.md$)/.test(p))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, "node_modules/@media-jobs/client/package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "@media-jobs/client", engines: { node: ">=18" } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    // Tens of kilobytes, not the service's 50 MB (about 104 kB since the workflow and template
    // operations' generated types; most of it the two copies of contract.gen's declarations).
    expect(packed.size).toBeLessThan(120_000);
  });

  it("installs no other package", () => {
    const installed = readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."));
    expect(installed).toEqual(["@media-jobs"]);
    expect(readdirSync(join(app, "node_modules/@media-jobs"))).toEqual(["client"]);
  });

  it.each([
    ["import", "main.mjs", `import * as sdk from "@media-jobs/client";`],
    ["require", "main.cjs", `const sdk = require("@media-jobs/client");`],
  ])("works through %s", (_how, file, load) => {
    writeFileSync(join(app, file), program(load));
    const out = JSON.parse(run(node, [file], app));
    expect(out.node).toBe(execFileSync(node, ["--version"], { encoding: "utf8" }).trim());
    expect(out.exports).toEqual(Object.keys(source).sort());
    expect(out.job).toMatchObject({ id: "job_1", type: "compressPdf", status: "pending", error: null, errorCode: null });
    expect(out.events).toEqual(["progress pending", "end cancelled"]);
    expect(out.same).toBe(true);
  });

  it("its declarations stand alone (no zod installed) and type-check for import and for require", () => {
    const usage = `
export async function run(): Promise<number> {
  const client = new MediaJobsClient({ apiKey: "k" });
  const job: SdkJob = await client.getJob("job_1");
  if (job.type === "compressImage" && job.status === "completed") return job.width + job.compressionRatio;
  // @ts-expect-error progress is a number or null
  const wrong: string = job.progress;
  void wrong;
  await client.enqueueJob({ type: "compressVideo", params: { url: "https://e.com/v.mp4", codec: "vp9" } });
  // @ts-expect-error quality of an image is 1–100
  await client.enqueueJob({ type: "compressImage", params: { url: "https://e.com/a.jpg", quality: "high" } });
  const usage: Usage = await client.getUsage();
  const deliveries: WebhookDelivery[] = await client.listWebhookDeliveries("job_1");
  for await (const e of client.jobEvents("job_1")) {
    const { event, job }: JobEvent = e;
    if (event === "end") return job.progress ?? 0;
  }
  try { await client.redeliverWebhook("job_1"); } catch (e) { if (e instanceof ApiError && e.code === "invalid_input") return e.status; }
  return usage.window.remaining + deliveries.length;
}
`;
    const names = `MediaJobsClient, ApiError, type JobEvent, type SdkJob, type Usage, type WebhookDelivery`;
    writeFileSync(join(app, "esm.mts"), `import { ${names} } from "@media-jobs/client";\n${usage}`);
    writeFileSync(join(app, "cjs.cts"), `import { ${names} } from "@media-jobs/client";\n${usage}`);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "es2022", lib: ["es2023", "dom"], types: [], module: "node16", moduleResolution: "node16", strict: true, noEmit: true },
        files: ["esm.mts", "cjs.cts"],
      }),
    );
    expect(existsSync(join(app, "node_modules/zod"))).toBe(false);
    expect(tscErrors(join(app, "tsconfig.json"))).toBe("");
  });
});

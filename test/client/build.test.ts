// The published build: `tsc -p tsconfig.client.json` emits ESM and .d.ts whose runtime
// import graph is relative .js files only (no zod, no packages), which loads and works
// on its own, and whose declarations type-check in a consumer project.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const tsc = join(root, "node_modules/.bin/tsc");
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "media-jobs-client-"));
  execFileSync(tsc, ["-p", join(root, "tsconfig.client.json"), "--outDir", out], { cwd: root, stdio: "pipe" });
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every module specifier a JS file imports or re-exports, static or dynamic (comments aside: JSDoc examples import the package). */
function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
  return [...new Set(found)];
}

/** The files index.js loads at runtime, following imports from it. */
function runtimeGraph(entry: string): { files: string[]; bad: string[] } {
  const files: string[] = [];
  const bad: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.includes(file)) continue;
    files.push(file);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      if (!/^\.\.?\//.test(spec) || !spec.endsWith(".js") || !existsSync(target)) {
        bad.push(`${relative(out, file)} imports "${spec}"`);
      } else queue.push(target);
    }
  }
  return { files: files.map((f) => relative(out, f)).sort(), bad };
}

describe("the built client", () => {
  it("emits dist/client/index.js and index.d.ts", () => {
    expect(existsSync(join(out, "client/index.js"))).toBe(true);
    expect(existsSync(join(out, "client/index.d.ts"))).toBe(true);
  });

  it("loads only relative .js files at runtime: the client and the three zod-free contract modules", () => {
    const { files, bad } = runtimeGraph(join(out, "client/index.js"));
    expect(bad).toEqual([]);
    expect(files.filter((f) => f.startsWith("contract/"))).toEqual(["contract/dialects.js", "contract/names.js", "contract/webhook-signature.js"]);
    for (const file of files) expect(readFileSync(join(out, file), "utf8")).not.toMatch(/\bzod\b/);
  });

  it("works when imported: maps a job from a fake fetch and round-trips a webhook signature", async () => {
    const sdk = (await import(pathToFileURL(join(out, "client/index.js")).href)) as typeof import("../../src/client/index.ts");
    expect(Object.keys(sdk).sort()).toEqual(
      [
        "ApiError",
        "ConnectionError",
        "DEFAULT_BASE_URL",
        "JobList",
        "MediaJobsClient",
        "MediaJobsError",
        "SIGNATURE_HEADER",
        "TIMESTAMP_HEADER",
        "TimeoutError",
        "WebhookVerificationError",
        "signWebhook",
        "verifyWebhook",
      ].sort(),
    );
    const fetch = async () =>
      Response.json({ id: "job_1", type: "compress-pdf", status: "queued", priority: 5, progress: null, createdAt: "2026-01-01T00:00:00.000Z" });
    const job = await new sdk.MediaJobsClient({ apiKey: "k", fetch }).getJob("job_1");
    expect(job).toMatchObject({ type: "compressPdf", status: "pending", error: null });

    const body = JSON.stringify(job);
    const headers = await sdk.signWebhook(body, "whsec_test", 1_000);
    await expect(sdk.verifyWebhook(body, headers, "whsec_test", { now: 1_000 })).resolves.toEqual(job);
  });

  it("its declarations type-check in a consumer project (node16 ESM resolution)", () => {
    const consumer = mkdtempSync(join(tmpdir(), "media-jobs-consumer-"));
    try {
      writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(
        join(consumer, "main.ts"),
        [
          `import { MediaJobsClient, ApiError, type SdkJob } from ${JSON.stringify(join(out, "client/index.js"))};`,
          `const client = new MediaJobsClient({ apiKey: "k" });`,
          `export async function run(): Promise<number> {`,
          `  const job: SdkJob = await client.getJob("job_1");`,
          `  if (job.type === "compressImage" && job.status === "completed") return job.width + job.compressionRatio;`,
          `  // @ts-expect-error progress is a number or null`,
          `  const wrong: string = job.progress;`,
          `  void wrong;`,
          `  await client.enqueueJob({ type: "compressVideo", params: { url: "https://e.com/v.mp4", codec: "vp9" } });`,
          `  try { await client.cancelJob("job_1"); } catch (e) { if (e instanceof ApiError) return e.status; }`,
          `  return 0;`,
          `}`,
        ].join("\n"),
      );
      writeFileSync(
        join(consumer, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "es2022",
            lib: ["es2023", "dom"],
            types: [],
            module: "node16",
            moduleResolution: "node16",
            strict: true,
            noEmit: true,
            // The declarations name zod's types (the contract's schemas); a consumer gets zod
            // with the package, here we point at the repo's copy.
            paths: { zod: [join(root, "node_modules/zod/index.d.cts")] },
          },
          files: ["main.ts"],
        }),
      );
      let output = "";
      try {
        execFileSync(tsc, ["-p", join(consumer, "tsconfig.json")], { cwd: consumer, encoding: "utf8", stdio: "pipe" });
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        output = `${stdout ?? ""}${stderr ?? ""}` || String(error);
      }
      expect(output).toBe("");
    } finally {
      rmSync(consumer, { recursive: true, force: true });
    }
  });
});

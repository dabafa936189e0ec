import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations("./migrations");

export default defineConfig({
  test: {
    // Three files at a time at least, whatever the cores: most files wait (on jobs, the
    // processor, wrangler dev) far longer than they compute, and vitest's default, one
    // fewer than the cores, runs one file at a time on 2 cores.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    projects: [
      {
        // Plain Node: the processor's tests, the contract's, the client library's, the plan
        // limits' pure functions and the bench's analysis.
        test: {
          name: "unit",
          environment: "node",
          include: [
            "container/test/**/*.test.ts",
            "test/contract/**/*.test.ts",
            "packages/client/test/**/*.test.ts",
            "test/limits/**/*.test.ts",
            "test/runner/**/*.test.ts",
            "bench/**/*.test.ts",
          ],
          env: { LOG_LEVEL: "warn" },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: migrations,
                PROCESSOR_URL: inject("processorUrl"),
                MEDIA_URL: inject("mediaUrl"),
                WEBHOOK_RECEIVER_URL: inject("webhookReceiverUrl"),
                // A real S3-compatible server for destinations (test/support/s3-setup.ts).
                S3_URL: inject("s3Url"),
                S3_HELPER_URL: inject("s3HelperUrl"),
                // The processor reaches the Worker (upload links) through this relay (global-setup.ts).
                PUBLIC_BASE_URL: inject("workerRelayUrl"),
                PROCESSOR_TOKEN: "test-processor-token-0123456789",
                FILES_SIGNING_SECRET: "test-files-signing-secret",
                ADMIN_TOKEN: "test-admin-token",
                DESTINATIONS_KEY: "test-destinations-key-0123456789",
                ALLOW_PRIVATE_NETWORK_INPUTS: "true",
                // Room for the largest plan test (a pro org's 10 and a free org's 2 at once);
                // test/worker/pool.test.ts narrows its own pool.
                PROCESSOR_CONCURRENCY: "16",
                // Chunked encoding (docs/fanout.md) of inputs from 6 s, in 1 s chunks: test/worker/fanout.test.ts.
                TUNABLES_OVERRIDE: JSON.stringify({ fanout: { minSeconds: 6, chunkSeconds: 1 } }),
                LOG_LEVEL: "error",
              },
            },
          })),
        ],
        // The dashboard's .tsx pages use Hono's JSX runtime (as tsconfig.json says for tsc and wrangler).
        oxc: { jsx: { runtime: "automatic", importSource: "hono/jsx" } },
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["./test/support/global-setup.ts", "./test/support/s3-setup.ts"],
          setupFiles: ["./test/support/apply-migrations.ts", "./test/worker/relay-pump.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // End to end: the whole service (wrangler dev + processor, test/support/service.ts),
        // started once for both folders (test/support/e2e-setup.ts), driven by a real
        // headless Chromium (/usr/bin/chromium) through playwright-core and by the client
        // library.
        test: {
          name: "e2e",
          environment: "node",
          include: [
            "test/browser/**/*.test.ts",
            "test/e2e/**/*.test.ts",
          ],
          globalSetup: ["./test/support/e2e-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

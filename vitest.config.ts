import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations("./migrations");

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "processor",
          environment: "node",
          include: ["container/test/**/*.test.ts", "test/contract/**/*.test.ts", "test/client/**/*.test.ts"],
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
                PROCESSOR_TOKEN: "test-processor-token-0123456789",
                FILES_SIGNING_SECRET: "test-files-signing-secret",
                ADMIN_TOKEN: "test-admin-token",
                ALLOW_PRIVATE_NETWORK_INPUTS: "true",
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["./test/support/global-setup.ts"],
          setupFiles: ["./test/support/apply-migrations.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});

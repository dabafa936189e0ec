import { defineConfig } from "vitest/config";

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
    ],
  },
});

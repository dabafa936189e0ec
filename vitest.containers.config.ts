// The containers tier (`npm run test:containers`): the service under `wrangler dev` with
// containers on a real Docker engine. Apart from `npm test`, which needs no Docker.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "containers",
    environment: "node",
    include: ["test/containers/**/*.test.ts"],
    fileParallelism: false,
    // The first start builds the image; a job may wait for a cold container.
    hookTimeout: 20 * 60_000,
    testTimeout: 6 * 60_000,
  },
});

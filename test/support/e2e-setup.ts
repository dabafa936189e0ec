// The e2e project's global setup (vitest.config.ts): starts the whole service once
// (startService: wrangler dev, the processor, the media server) for every file of the
// project, test/browser/ and test/e2e/, and gives its URLs to them through `provide`;
// a file reads them with inject("service"). Each file works in organizations of its own.
import type { TestProject } from "vitest/node";
import { startService } from "./service.ts";

declare module "vitest" {
  export interface ProvidedContext {
    service: { baseUrl: string; adminToken: string; mediaUrl: string };
  }
}

export default async function setup(project: TestProject) {
  const service = await startService();
  project.provide("service", { baseUrl: service.baseUrl, adminToken: service.adminToken, mediaUrl: service.mediaUrl });
  return () => service.stop();
}

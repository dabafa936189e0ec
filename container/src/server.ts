// Starts the processor: configuration first (refused as a whole if invalid), then the
// HTTP server. SIGTERM drains it (drain.ts): no new work, running jobs end and are reported, then it exits.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Socket } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { PROCESSOR_PROTOCOL_VERSION } from "../../src/contract/processor-protocol.ts";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { drainOnSignals } from "./drain.ts";
import { JobTable } from "./jobs.ts";
import { log } from "./log.ts";
import { loopbackPeerUid } from "./peer.ts";
import { startReadyImageTools, stopReadyImageTools } from "./tools/image-process.ts";
import { startReadyTools, stopReadyTools } from "./tools/ready-tools.ts";
import { readyKinds } from "./processors/index.ts";

/** Longer than any pool idle time of the Worker's runtime, so the Worker closes first. */
const KEEP_ALIVE_MS = 120_000;

/** After close(), connections still open (a request in flight) are cut after this long, so a drained processor exits. */
const CLOSE_GRACE_MS = 5_000;

export interface Processor {
  port: number;
  jobs: JobTable;
  /** The drain's deadline (config DRAIN_TIMEOUT_MS). */
  drainMs: number;
  close: () => Promise<void>;
}

export async function startProcessor(env: Record<string, string | undefined> = process.env): Promise<Processor> {
  const config = loadConfig(env, tmpdir());
  // Said at start, not only when a job asks (tools/watermark.ts fails those jobs plainly): everything else still works.
  if (!existsSync(config.WATERMARK_FONT_FILE)) log("warn", "text watermarks are unavailable: WATERMARK_FONT_FILE does not exist", { path: config.WATERMARK_FONT_FILE });
  // Refuses to start with ISOLATION=on where tools cannot be isolated (isolation.ts).
  const jobs = new JobTable(config);
  if (jobs.isolation.on) log("info", "tools are isolated: each attempt's under a uid of its own", { uids: `${config.TOOL_UID_BASE}-${config.TOOL_UID_BASE + config.TOOL_UIDS - 1}` });
  else log("warn", "tools are NOT isolated: every attempt's tools run as the processor's user and can read each other's files", { reason: jobs.isolation.reason });
  // `.ready`: no job's directory can be named so (jobs.ts safeName).
  await startReadyTools(config.READY_PROCESSES, join(config.workDir, ".ready"), readyKinds, jobs.identities, () => jobs.running > 0);
  await startReadyImageTools(config.READY_PROCESSES, join(config.workDir, ".ready-images"), jobs.identities);
  const app = createApp(config, jobs);
  const sweeper = setInterval(() => void jobs.sweep(Date.now()), 60_000).unref();
  return new Promise<Processor>((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: config.HOST, port: config.PORT }, (info) => {
      log("info", "processor listening", { host: config.HOST, port: info.port, protocol: PROCESSOR_PROTOCOL_VERSION, privateInputs: config.ALLOW_PRIVATE_NETWORK_INPUTS });
      resolve({
        port: info.port,
        jobs,
        drainMs: config.DRAIN_TIMEOUT_MS,
        close: () =>
          new Promise<void>((done) => {
            clearInterval(sweeper);
            stopReadyTools();
            stopReadyImageTools();
            server.close(() => done());
            // Idle keep-alive connections are closed at once; one still busy gets CLOSE_GRACE_MS to finish its answer.
            if ("closeAllConnections" in server) setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
          }),
      });
    });
    // Idle connections outlive the Worker's pooled ones: with Node's default 5 s, a
    // request the Worker sends on a connection Node is closing fails with "Network
    // connection lost" (docs/architecture.md, "Reaching the processor").
    // A tool is never a client of the API (peer.ts): it could start jobs of its own here, or try attempt tokens.
    const identities = jobs.identities;
    if (identities) server.on("connection", (socket: Socket) => void (identities.owns(loopbackPeerUid(socket) ?? -1) && socket.destroy()));
    if ("keepAliveTimeout" in server) {
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      server.headersTimeout = KEEP_ALIVE_MS + 1_000;
    }
  });
}

if (import.meta.main) {
  try {
    drainOnSignals(await startProcessor(), process);
  } catch (error) {
    console.error(String((error as Error).message));
    process.exit(1);
  }
}

// What the processor does on SIGTERM: Cloudflare sends it at every rollout and host restart,
// and SIGKILL 15 minutes later (developers.cloudflare.com/containers/platform-details/rollouts/);
// the containers package's idle stop sends it too, never followed by SIGKILL
// (@cloudflare/containers dist/lib/container.js: `stop()` signals SIGTERM by default).
import { log } from "./log.ts";
import type { Processor } from "./server.ts";

/** The part of `process` drainOnSignals uses, so a test can signal and see the exit. */
export interface SignalTarget {
  on(signal: "SIGTERM" | "SIGINT", listener: () => void): unknown;
  exit(code: number): void;
}

/**
 * The first SIGTERM or SIGINT drains (JobTable.drain: no new starts, running jobs finish and
 * are reported, those still running at the deadline are handed back), then closes the
 * server and exits 0. A second signal exits at once (1). Returns the drain under way, if any.
 */
export function drainOnSignals(processor: Processor, target: SignalTarget): () => Promise<void> | undefined {
  let drain: Promise<void> | undefined;
  const onSignal = (signal: "SIGTERM" | "SIGINT") => {
    if (drain) {
      log("warn", "second signal while draining; exiting now", { signal });
      target.exit(1);
      return;
    }
    log("info", "signal received; draining", { signal, running: processor.jobs.running, deadlineMs: processor.drainMs });
    const started = Date.now();
    drain = processor.jobs
      .drain(processor.drainMs)
      .then(() => processor.close())
      .then(
        () => {
          log("info", "drained; exiting", { ms: Date.now() - started });
          target.exit(0);
        },
        (error: unknown) => {
          log("error", "drain failed; exiting", { error: String(error) });
          target.exit(1);
        },
      );
  };
  target.on("SIGTERM", () => onSignal("SIGTERM"));
  target.on("SIGINT", () => onSignal("SIGINT"));
  return () => drain;
}

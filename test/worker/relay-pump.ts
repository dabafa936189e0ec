// For each Worker test file: serves the requests that reach the Worker's public origin
// (the relay in test/support/global-setup.ts) for the whole file: the processor's pushed events and its
// downloads of uploads. Without it, a job would end only when its runner's watchdog asks.
import { afterAll, beforeAll } from "vitest";
import { relayToWorker } from "./helpers.ts";

let stop: AbortController | undefined;
let pump: Promise<number> | undefined;

beforeAll(() => {
  stop = new AbortController();
  pump = relayToWorker(stop.signal);
});

afterAll(async () => {
  stop?.abort();
  await pump;
});

// For each Worker test file: serves the requests that reach the Worker's public origin
// (the relay in test/support/global-setup.ts) for the whole file: the processor's pushed
// events and its downloads of uploads. The file's Worker gets an origin of its own under
// the relay (`/__scope/<tag>`), so files running side by side do not take each other's
// requests. Without the pump a job would end only when its runner's watchdog asks.
import { afterAll, beforeAll } from "vitest";
import { relayToWorker, testEnv } from "./helpers.ts";

let stop: AbortController | undefined;
let pump: Promise<number> | undefined;
const base = testEnv.PUBLIC_BASE_URL.replace(/\/__scope\/.*$/, "");

beforeAll(() => {
  const scope = crypto.randomUUID().replaceAll("-", "");
  (testEnv as { PUBLIC_BASE_URL: string }).PUBLIC_BASE_URL = `${base}/__scope/${scope}`;
  stop = new AbortController();
  pump = relayToWorker(stop.signal, { base, scope });
});

afterAll(async () => {
  stop?.abort();
  await pump;
});

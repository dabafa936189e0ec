// Configuration is checked as a whole and reported by name, never by value: /healthz turns
// 503, and the container gets only usable values and no secret.
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { idleStop, POOL } from "../../src/limits/pool-plan.ts";
import { configProblems } from "../../src/ops/config.ts";
import { processorEnv } from "../../src/runner/container.ts";
import { testEnv } from "./helpers.ts";

const containerMode = { ...testEnv, PROCESSOR_URL: "" } as Env;

describe("configuration", () => {
  it("accepts the test configuration, local and with containers", () => {
    expect(configProblems(testEnv)).toEqual([]);
    expect(configProblems(containerMode)).toEqual([]);
  });

  it("names each missing secret and invalid value", () => {
    const env = {
      ...containerMode,
      PROCESSOR_TOKEN: undefined,
      FILES_SIGNING_SECRET: undefined,
      ADMIN_TOKEN: "too-short",
      PUBLIC_BASE_URL: "ftp://example.com",
      ALLOW_PRIVATE_NETWORK_INPUTS: "yes",
      LOG_LEVEL: "verbose",
      RETENTION: "{not json",
      CONTAINER_SLEEP_AFTER: "10 minutes",
    } as unknown as Env;
    const names = configProblems(env).map((p) => p.name);
    expect(names.sort()).toEqual(
      ["ADMIN_TOKEN", "ALLOW_PRIVATE_NETWORK_INPUTS", "CONTAINER_SLEEP_AFTER", "FILES_SIGNING_SECRET", "LOG_LEVEL", "PUBLIC_BASE_URL", "RETENTION"].sort(),
    );
  });

  it("needs PROCESSOR_TOKEN for a processor at PROCESSOR_URL but not with containers, which hold no secret", () => {
    expect(configProblems({ ...testEnv, PROCESSOR_TOKEN: undefined } as unknown as Env)).toEqual([
      { name: "PROCESSOR_TOKEN", problem: "is not set (required with PROCESSOR_URL: the processor is reached over the network)" },
    ]);
    expect(configProblems({ ...containerMode, PROCESSOR_TOKEN: undefined } as unknown as Env)).toEqual([]);
  });

  it("refuses a PUBLIC_BASE_URL on loopback or a private network unless ALLOW_PRIVATE_NETWORK_INPUTS is true", () => {
    const production = { ...containerMode, ALLOW_PRIVATE_NETWORK_INPUTS: "false" } as Env;
    expect(configProblems({ ...production, PUBLIC_BASE_URL: "http://127.0.0.1:8787" })).toEqual([
      {
        name: "PUBLIC_BASE_URL",
        problem:
          'is http://127.0.0.1:8787, a loopback address: download links in webhooks would point at the receiver\'s own machine or network; set it to the Worker\'s public origin (ALLOW_PRIVATE_NETWORK_INPUTS="true" allows it, for local development and tests only)',
      },
    ]);
    for (const url of ["http://localhost:8787", "http://api.localhost", "http://10.1.2.3", "http://192.168.0.4:8787", "http://[::1]:8787", "http://[fd00::1]", "http://169.254.169.254"]) {
      expect(configProblems({ ...production, PUBLIC_BASE_URL: url }).map((p) => p.name), url).toEqual(["PUBLIC_BASE_URL"]);
    }
    for (const url of ["https://media-jobs.example.com", "https://media-jobs.acme.workers.dev/", "http://203.0.114.7"]) {
      expect(configProblems({ ...production, PUBLIC_BASE_URL: url }), url).toEqual([]);
    }
    // Local development and tests (npm run dev's .dev.vars, vitest.config.ts, the containers tier) allow it.
    expect(configProblems({ ...production, ALLOW_PRIVATE_NETWORK_INPUTS: "true", PUBLIC_BASE_URL: "http://127.0.0.1:8787" })).toEqual([]);
    expect(testEnv.ALLOW_PRIVATE_NETWORK_INPUTS).toBe("true");
  });

  it("/healthz answers 503 for a loopback PUBLIC_BASE_URL in production, with the message", async () => {
    const env = { ...containerMode, ALLOW_PRIVATE_NETWORK_INPUTS: "false", PUBLIC_BASE_URL: "http://127.0.0.1:8787" } as Env;
    const res = await app.request("/healthz", {}, env);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: { config: { problems: { name: string; problem: string }[] } } };
    expect(body.checks.config.problems).toEqual([{ name: "PUBLIC_BASE_URL", problem: expect.stringMatching(/^is http:\/\/127\.0\.0\.1:8787, a loopback address: .*set it to the Worker's public origin/) }]);
  });

  it("/healthz answers 503 naming the variable, without its value", async () => {
    const env = { ...containerMode, PROCESSOR_TOKEN: "short-token", ADMIN_TOKEN: undefined } as unknown as Env;
    const res = await app.request("/healthz", {}, env);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain("short-token");
    const body = JSON.parse(text) as { ok: boolean; checks: { config: { ok: boolean; problems: { name: string }[] } } };
    expect(body.ok).toBe(false);
    expect(body.checks.config.ok).toBe(false);
    expect(body.checks.config.problems.map((p) => p.name).sort()).toEqual(["ADMIN_TOKEN", "PROCESSOR_TOKEN"]);
  });

  it("starts the container with no secret, and with the Worker's private-input setting", () => {
    expect(processorEnv({ ...containerMode, PROCESSOR_TOKEN: undefined, ALLOW_PRIVATE_NETWORK_INPUTS: "false" } as unknown as Env)).toEqual({
      ALLOW_PRIVATE_NETWORK_INPUTS: "false",
    });
    expect(processorEnv({ ...containerMode, ALLOW_PRIVATE_NETWORK_INPUTS: "true" })).toEqual({ ALLOW_PRIVATE_NETWORK_INPUTS: "true" });
  });

  it("uses CONTAINER_SLEEP_AFTER when it is a duration, else the default", () => {
    expect(idleStop({ ...containerMode, CONTAINER_SLEEP_AFTER: "20s" })).toBe("20s");
    expect(idleStop({ ...containerMode, CONTAINER_SLEEP_AFTER: "soon" })).toBe(POOL.idleStop);
  });
});

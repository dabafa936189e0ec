// Configuration is checked as a whole and reported by name, never by value: /healthz turns
// 503, and the container gets only usable values and no secret.
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { idleStop, POOL } from "../../src/limits/pool-plan.ts";
import { configProblems, configWarnings } from "../../src/ops/config.ts";
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
      DESTINATIONS_KEY: undefined,
      PUBLIC_BASE_URL: "ftp://example.com",
      ALLOW_PRIVATE_NETWORK_INPUTS: "yes",
      LOG_LEVEL: "verbose",
      RETENTION: "{not json",
      CONTAINER_SLEEP_AFTER: "10 minutes",
    } as unknown as Env;
    const names = configProblems(env).map((p) => p.name);
    expect(names.sort()).toEqual(
      ["ADMIN_TOKEN", "ALLOW_PRIVATE_NETWORK_INPUTS", "CONTAINER_SLEEP_AFTER", "DESTINATIONS_KEY", "FILES_SIGNING_SECRET", "LOG_LEVEL", "PUBLIC_BASE_URL", "RETENTION"].sort(),
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

  it("starts the container with no secret, with the Worker's private-input setting and a seat's share of its vCPUs per encode", () => {
    expect(processorEnv({ ...containerMode, PROCESSOR_TOKEN: undefined, ALLOW_PRIVATE_NETWORK_INPUTS: "false" } as unknown as Env)).toEqual({
      ALLOW_PRIVATE_NETWORK_INPUTS: "false",
      ENCODER_THREADS: "1",
    });
    expect(processorEnv({ ...containerMode, ALLOW_PRIVATE_NETWORK_INPUTS: "true" })).toEqual({ ALLOW_PRIVATE_NETWORK_INPUTS: "true", ENCODER_THREADS: "1" });
    // standard-4's 4 vCPUs shared by 2 seats: two threads each.
    expect(processorEnv({ ...containerMode, JOBS_PER_INSTANCE: "2", PROCESSOR_VCPUS: "4" }).ENCODER_THREADS).toBe("2");
  });

  it("uses CONTAINER_SLEEP_AFTER when it is a duration, else the default", () => {
    expect(idleStop({ ...containerMode, CONTAINER_SLEEP_AFTER: "20s" })).toBe("20s");
    expect(idleStop({ ...containerMode, CONTAINER_SLEEP_AFTER: "soon" })).toBe(POOL.idleStop);
  });
});

describe("the instance budget", () => {
  it("refuses a PROCESSOR_INSTANCES above wrangler.toml's max_instances, naming both and where the other copy is", () => {
    expect(configProblems({ ...containerMode, PROCESSOR_INSTANCES: String(POOL.instances + 10) })).toEqual([
      {
        name: "PROCESSOR_INSTANCES",
        problem: `is ${POOL.instances + 10} but wrangler.toml max_instances is ${POOL.instances} (src/lib/tunables.ts pool.instances); lower it or raise both`,
      },
    ]);
    expect(configProblems({ ...containerMode, PROCESSOR_INSTANCES: String(POOL.instances) })).toEqual([]);
    expect(configProblems({ ...containerMode, PROCESSOR_INSTANCES: "2" })).toEqual([]);
  });

  it("refuses pool vars that are not positive integers, which the pool could not read", () => {
    for (const value of ["0", "-1", "2.5", "two"]) {
      expect(configProblems({ ...containerMode, PROCESSOR_INSTANCES: value, JOBS_PER_INSTANCE: value }).map((p) => `${p.name} ${p.problem}`)).toEqual([
        "PROCESSOR_INSTANCES must be a positive integer",
        "JOBS_PER_INSTANCE must be a positive integer",
      ]);
    }
  });

  it("ignores them for a local processor, where the pool is one instance", () => {
    expect(configProblems({ ...testEnv, PROCESSOR_INSTANCES: "500", JOBS_PER_INSTANCE: "none" })).toEqual([]);
  });

  it("warns, without blocking, of more jobs per instance than a standard-2 holds (1 vCPU, 12 GB of disk); not for a local processor", async () => {
    expect(POOL.instanceType).toBe("standard-2");
    expect(configWarnings(containerMode)).toEqual([]);
    expect(configWarnings({ ...containerMode, JOBS_PER_INSTANCE: "2" })).toEqual([]);
    const env = { ...containerMode, JOBS_PER_INSTANCE: "3" };
    expect(configWarnings(env)).toEqual([
      { name: "JOBS_PER_INSTANCE", problem: "is 3 on a standard-2 of 1 vCPU: more than 2 jobs per vCPU, each encode gets a smaller share and runs longer" },
      { name: "JOBS_PER_INSTANCE", problem: "is 3: that many jobs with a 2 GiB input and an output as large need 12.9 GB of disk, a standard-2 has 12 GB" },
    ]);
    expect(configProblems(env)).toEqual([]);
    // /healthz reports them in its config check, which stays ok (200).
    const res = await app.request("/healthz", {}, env);
    const body = (await res.json()) as { ok: boolean; checks: { config: { ok: boolean; warnings?: { name: string }[] } } };
    expect([res.status, body.ok, body.checks.config.ok]).toEqual([200, true, true]);
    expect(body.checks.config.warnings?.map((w) => w.name)).toEqual(["JOBS_PER_INSTANCE", "JOBS_PER_INSTANCE"]);
    expect(configWarnings({ ...testEnv, JOBS_PER_INSTANCE: "3" })).toEqual([]);
  });
});

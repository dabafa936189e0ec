// The Worker's configuration, checked as a whole: every missing secret and invalid value,
// by variable name (never its value). /healthz reports the problems (503) and JobRunner
// refuses to start an attempt while there are any, so jobs wait in their queue instead of
// failing on processors that cannot run (docs/deploy.md: configuration).
import { z } from "zod";
import { log } from "../lib/log.ts";
import { classifyAddress } from "../net/address-policy.ts";

import { IDLE_STOP_DURATION, POOL, poolConfig, type PoolVars } from "../limits/pool-plan.ts";
import { UPLOAD_LIMITS } from "../contract/uploads.ts";

const secret = z.string({ error: "is not set" }).min(16, "must be at least 16 characters");
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

const schema = z.object({
  FILES_SIGNING_SECRET: secret,
  ADMIN_TOKEN: secret,
  /** Encrypts destinations' secret access keys at rest (docs/destinations.md). */
  DESTINATIONS_KEY: secret,
  /** Required with a processor at PROCESSOR_URL (reached over the network); containers need none (docs/security.md). */
  PROCESSOR_TOKEN: secret.optional(),
  /** Empty: jobs run in containers. */
  PROCESSOR_URL: z.union([z.literal(""), httpUrl]).optional(),
  PUBLIC_BASE_URL: httpUrl,
  ALLOW_PRIVATE_NETWORK_INPUTS: z.enum(["true", "false", ""], { error: 'must be "true" or "false"' }).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", ""], { error: "must be debug, info, warn or error" }).optional(),
  RETENTION: z
    .string()
    .refine((raw) => {
      if (!raw) return true;
      try {
        const parsed: unknown = JSON.parse(raw);
        return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
      } catch {
        return false;
      }
    }, "must be a JSON object")
    .optional(),
  CONTAINER_SLEEP_AFTER: z
    .string()
    .refine((value) => value === "" || IDLE_STOP_DURATION.test(value), 'must be a duration such as "90s", "5m" or "1h"')
    .optional(),
});

export interface ConfigProblem {
  /** The variable's name; its value is never reported. */
  name: string;
  problem: string;
}

/** Every configuration problem, in variable order; empty when the Worker can run jobs. */
export function configProblems(env: Env): ConfigProblem[] {
  const parsed = schema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => ({ name: issue.path.join("."), problem: issue.message }));
  // Checked apart from the schema, whose cross-field rules run only when all else is valid.
  if (env.PROCESSOR_URL && !env.PROCESSOR_TOKEN) {
    problems.push({ name: "PROCESSOR_TOKEN", problem: "is not set (required with PROCESSOR_URL: the processor is reached over the network)" });
  }
  const origin = env.ALLOW_PRIVATE_NETWORK_INPUTS === "true" ? undefined : privateOrigin(env.PUBLIC_BASE_URL);
  if (origin) {
    problems.push({
      name: "PUBLIC_BASE_URL",
      problem: `is ${env.PUBLIC_BASE_URL}, a ${origin} address: download links in webhooks would point at the receiver's own machine or network; set it to the Worker's public origin (ALLOW_PRIVATE_NETWORK_INPUTS="true" allows it, for local development and tests only)`,
    });
  }
  problems.push(...poolBudgetProblems(env));
  return problems;
}

/** The kind of address (loopback, private-use, …) `url`'s host is when it is not a public one; undefined for a public or unparsable one. */
function privateOrigin(url: string | undefined): string | undefined {
  const host = url ? URL.parse(url)?.hostname.replace(/^\[|\]$/g, "").toLowerCase() : undefined;
  if (!host) return undefined;
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (!/^[0-9.]+$/.test(host) && !host.includes(":")) return undefined;
  const verdict = classifyAddress(host);
  return verdict.allowed ? undefined : verdict.range;
}

/** Logs and returns the problems; an error log line per call site that found any. */
export function reportConfigProblems(env: Env, where: string): ConfigProblem[] {
  const problems = configProblems(env);
  if (problems.length > 0) {
    log("error", "configuration is unusable; no job will start until it is fixed", { where, problems: describe(problems) });
  }
  return problems;
}

export function describe(problems: ConfigProblem[]): string {
  return problems.map((p) => `${p.name} ${p.problem}`).join("; ");
}

/** A pool var's value when it is a positive integer (as poolConfig reads it); undefined when unset or empty, NaN when invalid. */
function poolVar(env: PoolVars, name: "PROCESSOR_INSTANCES" | "JOBS_PER_INSTANCE"): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 1 ? value : NaN;
}

/**
 * The instance budget, when jobs run in containers (locally the pool is one instance):
 * the pool plans PROCESSOR_INSTANCES instances, the platform runs at most wrangler.toml's
 * max_instances, which TUNABLES.pool.instances equals (test/limits/pool-plan.test.ts); a
 * pool planning more would seat jobs on containers the platform refuses (503, "no
 * instance": src/runner/transport.ts). These numbers are no secrets: the mismatch names them.
 */
function poolBudgetProblems(env: PoolVars): ConfigProblem[] {
  if (env.PROCESSOR_URL) return [];
  const problems: ConfigProblem[] = [];
  for (const name of ["PROCESSOR_INSTANCES", "JOBS_PER_INSTANCE"] as const) {
    if (Number.isNaN(poolVar(env, name))) problems.push({ name, problem: "must be a positive integer" });
  }
  const instances = poolVar(env, "PROCESSOR_INSTANCES");
  if (instances !== undefined && instances > POOL.instances) {
    problems.push({
      name: "PROCESSOR_INSTANCES",
      problem: `is ${instances} but wrangler.toml max_instances is ${POOL.instances} (src/lib/tunables.ts pool.instances); lower it or raise both`,
    });
  }
  return problems;
}

/**
 * Cloudflare's instance types, vCPU and disk (GB):
 * https://developers.cloudflare.com/containers/platform/limits/ (Instance Types).
 */
const INSTANCE_TYPES: Record<string, { vcpu: number; diskGB: number }> = {
  lite: { vcpu: 1 / 16, diskGB: 2 },
  basic: { vcpu: 1 / 4, diskGB: 4 },
  "standard-1": { vcpu: 1 / 2, diskGB: 8 },
  "standard-2": { vcpu: 1, diskGB: 12 },
  "standard-3": { vcpu: 2, diskGB: 16 },
  "standard-4": { vcpu: 4, diskGB: 20 },
};

/**
 * Settings that run, but not as they should: reported by /healthz beside the problems,
 * without blocking jobs. Jobs per instance (JOBS_PER_INSTANCE, or the instance type's
 * default) beyond what TUNABLES.pool.instanceType holds: more than 2 per vCPU (the pool's
 * own rule, TUNABLES.pool.jobsPerInstanceByType, puts 2 on one vCPU only so that one job's
 * transfers overlap the other's encoding), or more inputs of the largest size
 * (UPLOAD_LIMITS.maxBytes, the processor's MAX_INPUT_BYTES) with an output as large than
 * the instance's disk holds.
 */
export function configWarnings(env: PoolVars): ConfigProblem[] {
  if (env.PROCESSOR_URL || poolBudgetProblems(env).length > 0) return [];
  const seats = poolConfig(env).seatsPerInstance;
  const type = POOL.instanceType;
  const { vcpu, diskGB } = INSTANCE_TYPES[type]!;
  const warnings: ConfigProblem[] = [];
  if (seats > vcpu * 2) {
    warnings.push({ name: "JOBS_PER_INSTANCE", problem: `is ${seats} on a ${type} of ${vcpu} vCPU: more than 2 jobs per vCPU, each encode gets a smaller share and runs longer` });
  }
  const diskNeededGB = (seats * 2 * UPLOAD_LIMITS.maxBytes) / 1e9;
  if (diskNeededGB > diskGB) {
    warnings.push({
      name: "JOBS_PER_INSTANCE",
      problem: `is ${seats}: that many jobs with a 2 GiB input and an output as large need ${diskNeededGB.toFixed(1)} GB of disk, a ${type} has ${diskGB} GB`,
    });
  }
  return warnings;
}

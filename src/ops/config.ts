// The Worker's configuration, checked as a whole: every missing secret and invalid value,
// by variable name (never its value). /healthz reports the problems (503) and JobRunner
// refuses to start an attempt while there are any, so jobs wait in their queue instead of
// failing on processors that cannot run (docs/deploy.md: configuration).
import { z } from "zod";
import { log } from "../lib/log.ts";
import { classifyAddress } from "../net/address-policy.ts";

import { IDLE_STOP_DURATION } from "../limits/pool-plan.ts";

const secret = z.string({ error: "is not set" }).min(16, "must be at least 16 characters");
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

const schema = z.object({
  FILES_SIGNING_SECRET: secret,
  ADMIN_TOKEN: secret,
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

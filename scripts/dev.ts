// `npm run dev`: the whole service locally. Creates .dev.vars, checks the media tools,
// applies D1 migrations, then runs the processor (Node) and `wrangler dev` (containers
// disabled) together; Ctrl-C, or either one exiting, stops both.
// `npm run dev:containers` (--containers): no Node processor; `wrangler dev` builds
// container/Dockerfile and runs each job in a container on the local Docker engine, as in
// production (docs/deploy.md: the containers tier).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { POOL } from "../src/limits/pool-plan.ts";
import { ensureDevVars } from "./dev-vars.ts";
import { dockerBridgeGateway, ensureDocker, ensureTools } from "./tools.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = `${root}/node_modules/.bin/wrangler`;
const containers = process.argv.includes("--containers");
const vars = ensureDevVars(root);
if (containers) ensureDocker();
else ensureTools();

const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, CI: "true" },
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const processorUrl = new URL(vars.PROCESSOR_URL || "http://127.0.0.1:8081");
const port = process.env.PORT ?? "8787";
const children: ChildProcess[] = [];
let stopping = false;

function run(name: string, command: string, args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  children.push(child);
  child.on("exit", (code) => {
    if (!stopping) {
      console.error(`${name} exited (${code ?? "signal"}); stopping`);
      stop(code ?? 1);
    }
  });
}

function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once("exit", r)) : null))).then(() => process.exit(code));
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

if (containers) {
  // PROCESSOR_URL empty: jobs go to ProcessorContainer. Private-network inputs are allowed
  // in this local tier only, so that media served on the Docker host can be used.
  const overrides = {
    PROCESSOR_URL: "",
    ALLOW_PRIVATE_NETWORK_INPUTS: "true",
    CONTAINER_SLEEP_AFTER: process.env.CONTAINER_SLEEP_AFTER ?? "1m",
    // wrangler dev does not enforce [[containers]] max_instances; the pool does, from this.
    PROCESSOR_INSTANCES: process.env.PROCESSOR_INSTANCES ?? "2",
  };
  const gateway = dockerBridgeGateway();
  if (gateway) console.log(`containers reach this machine at ${gateway} (serve inputs there, not on 127.0.0.1)`);
  run("wrangler", wrangler, ["dev", "--enable-containers", "--ip", "127.0.0.1", "--port", port, ...Object.entries(overrides).flatMap(([k, v]) => ["--var", `${k}:${v}`])]);
} else {
  run("processor", process.execPath, ["container/src/server.ts"], {
    HOST: processorUrl.hostname,
    PORT: processorUrl.port || "8081",
    PROCESSOR_TOKEN: vars.PROCESSOR_TOKEN,
    ALLOW_PRIVATE_NETWORK_INPUTS: vars.ALLOW_PRIVATE_NETWORK_INPUTS ?? "true",
    // Each encode's threads: a seat's share of this machine's cores (container/src/config.ts ENCODER_THREADS).
    ENCODER_THREADS: String(Math.max(1, Math.floor(availableParallelism() / (Number(vars.PROCESSOR_CONCURRENCY) || POOL.localSeats)))),
  });
  // A `dev:containers` run leaves its containers' Durable Objects in the local state, with
  // their alarms; without containers those objects cannot be built, and each alarm fails
  // loudly. They hold only the containers' own timers: start without them.
  rmSync(`${root}/.wrangler/state/v3/do/media-jobs-ProcessorContainer`, { recursive: true, force: true });
  run("wrangler", wrangler, ["dev", "--enable-containers=false", "--ip", "127.0.0.1", "--port", port]);
}

// The processor in production: one container per pool instance (`processor-<n>`), shared
// by the jobs seated on it (src/limits/processor-pool.ts), kept warm between jobs and
// stopped once idle (docs/capacity.md: the processor pool). Constructed only when
// PROCESSOR_URL is empty, so `wrangler dev --enable-containers=false` never touches it.
import { Container } from "@cloudflare/containers";
import { idleStop, poolConfig } from "../limits/pool-plan.ts";
import { processorPool } from "../limits/processor-pool.ts";
import { log } from "../lib/log.ts";
import { PROCESSOR_INPUTS_PATH, PROCESSOR_OUTPUTS_PATH, PROCESSOR_PLAYABLE_PATH } from "../contract/processor-protocol.ts";
import { CALLBACK_HOST, receiveProcessorEvent } from "./events.ts";
import { readProcessorInput } from "./input-read.ts";
import { receiveProcessorOutput } from "./output-upload.ts";
import { receivePlayable } from "./playable.ts";

export class ProcessorContainer extends Container<Env> {
  override defaultPort = 8080;

  /**
   * The processor pushes its events and uploads its outputs to http://CALLBACK_HOST/…: the
   * runtime hands those requests to this handler inside the Worker (the containers
   * package's ContainerProxy entrypoint, with the Worker's bindings), so they never cross
   * the internet, need no public route, and an output streams from the container into R2
   * without passing through the JobRunner (src/runner/events.ts, output-upload.ts); an
   * uploaded input streams from R2 into the container the same way (input-read.ts).
   * `ctx.containerId` names the container that sent the request (the id of its
   * ProcessorContainer, @cloudflare/containers dist/lib/container.js ContainerProxy.fetch):
   * the runner takes a request only from the container of its attempt's seat.
   */
  static {
    ProcessorContainer.outboundByHost = {
      [CALLBACK_HOST]: (request, env, ctx) => {
        const path = new URL(request.url).pathname;
        const sender = ctx.containerId;
        if (path.startsWith(`${PROCESSOR_OUTPUTS_PATH}/`)) return receiveProcessorOutput(env as Env, request, sender);
        if (path.startsWith(`${PROCESSOR_INPUTS_PATH}/`)) return readProcessorInput(env as Env, request, sender);
        if (path === PROCESSOR_PLAYABLE_PATH) return receivePlayable(env as Env, request, sender);
        return receiveProcessorEvent(env as Env, request, sender);
      },
    };
  }

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    // Every request renews the activity timer; this is how long after the last one the
    // container is asked whether it may stop (onActivityExpired).
    super(ctx, env, { sleepAfter: idleStop(env), envVars: processorEnv(env) });
  }

  /**
   * Stops only when the processor runs no job and the pool agrees: a long encode sends no
   * requests for minutes, and stopping under it would cost the job an attempt; and the pool
   * steers a new job to the most recently used idle instance, exactly this one, so it is asked
   * (`mayStop`) whether a seat here was granted meanwhile, and seats nothing more here until
   * the container reports its stop (onStop). `stop()` sends SIGTERM and never SIGKILL
   * (@cloudflare/containers dist/lib/container.js); the idle processor drains at once and
   * exits. A processor that cannot answer is asked again after another idle period; the
   * runner counts it lost meanwhile.
   */
  override async onActivityExpired(): Promise<void> {
    if (!this.ctx.container?.running) return;
    const instance = this.ctx.id.name ?? this.ctx.id.toString();
    try {
      const response = await this.containerFetch("http://processor/status");
      const status = (await response.json()) as { running?: number; draining?: boolean };
      // A draining processor exits by itself once its jobs are released; another SIGTERM
      // would make it exit at once (container/src/drain.ts), cutting off its last pushes.
      if (response.ok && status.draining) return;
      if (response.ok && status.running === 0) {
        if (await processorPool(this.env).mayStop(instance)) {
          log("info", "processor idle; stopping", { instance });
          await this.stop();
          return;
        }
        log("info", "processor idle but a job was just seated on it; keeping it", { instance });
      }
    } catch (error) {
      log("warn", "processor did not report its status; keeping it", { error: String(error) });
    }
    this.renewActivityTimeout();
  }

  /** The container exited (idle stop, drain, crash): the pool may seat jobs here again, on a new container. */
  override async onStop(params: { exitCode: number; reason: string }): Promise<void> {
    const instance = this.ctx.id.name ?? this.ctx.id.toString();
    log("info", "processor container stopped", { instance, ...params });
    try {
      await processorPool(this.env).stopped(instance);
    } catch (error) {
      log("warn", "could not tell the pool a container stopped; its mark expires on its own", { instance, error: String(error) });
    }
  }
}

/**
 * What the processor is started with: no secret. Its API is reached only through this
 * Durable Object (and from inside the container), each attempt's routes need that
 * attempt's own token, and what it sends back carries that token (docs/security.md);
 * PROCESSOR_TOKEN stays in the Worker. Private-network inputs follow the Worker's own
 * setting, "false" in wrangler.toml; only the local containers tier turns it on, for
 * inputs served from the Docker host.
 */
export function processorEnv(env: Env): Record<string, string> {
  const vars: Record<string, string> = {
    ALLOW_PRIVATE_NETWORK_INPUTS: env.ALLOW_PRIVATE_NETWORK_INPUTS === "true" ? "true" : "false",
  };
  // The processor's drain deadline (container/src/config.ts DRAIN_TIMEOUT_MS): shortened only
  // by the containers tier (test/containers/drain.test.ts); not in wrangler.toml.
  // Each encode's threads: its seat's share of the instance's vCPUs (at least one).
  const pool = poolConfig(env);
  vars.ENCODER_THREADS = String(Math.max(1, Math.floor(pool.vcpusPerInstance / pool.seatsPerInstance)));
  const drainMs = (env as { PROCESSOR_DRAIN_TIMEOUT_MS?: unknown }).PROCESSOR_DRAIN_TIMEOUT_MS;
  if (typeof drainMs === "string" && /^[1-9][0-9]{0,8}$/.test(drainMs)) vars.DRAIN_TIMEOUT_MS = drainMs;
  return vars;
}

// A cheap per-key request rate for reads (GET), so a polling loop gone wrong cannot
// hammer D1: the Workers rate-limiting binding READ_RATE_LIMITER (wrangler.toml, which
// must match TUNABLES.readRate). Creates are governed by the plan's hourly quota instead.
import { createMiddleware } from "hono/factory";
import { rateLimited } from "./headers.ts";
import { TUNABLES } from "../lib/tunables.ts";

export const READ_RATE = { limit: TUNABLES.readRate.requests, periodS: TUNABLES.readRate.periodS } as const;

export const readRateLimit = () =>
  createMiddleware<{ Bindings: Env }>(async function readRateLimit(c, next) {
    if (c.req.method !== "GET") return next();
    const { success } = await c.env.READ_RATE_LIMITER.limit({ key: c.get("apiKeyId") });
    if (!success) {
      throw rateLimited({ name: "reads", quota: READ_RATE.limit, windowS: READ_RATE.periodS }, READ_RATE.periodS, `too many requests: reads are limited to ${READ_RATE.limit} per ${READ_RATE.periodS} s per API key`);
    }
    await next();
  });

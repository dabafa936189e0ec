// Credentials first on the processor's internal routes (docs/security.md): a request without
// the credentials of a begun attempt gets 401, the same whatever failed, naming no version,
// state or attempt; no Durable Object is asked (none made for a made-up name), and nothing is
// logged as an error. The versions are named, as before, to the attempt's own processor only.
import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/app.ts";
import { PROCESSOR_EVENTS_PATH, PROCESSOR_INPUTS_PATH, PROCESSOR_OUTPUTS_PATH, PROCESSOR_PLAYABLE_PATH, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { newAttemptToken } from "../../src/runner/credentials.ts";
import { attemptToken, call, errorLines, newKey, protocolHeader, runningJob, storedJob, testEnv } from "./helpers.ts";

/** The Worker with a JOB_RUNNER binding that records every runner it is asked for. */
function worker(vars: Partial<Env> = {}) {
  const runners: string[] = [];
  const JOB_RUNNER = new Proxy(testEnv.JOB_RUNNER, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "getByName" || name === "idFromName" || name === "get") runners.push(String(args[0]));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const env = { ...testEnv, JOB_RUNNER, ...vars } as Env;
  const fetch = (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://127.0.0.1:8787${path}`, init), env, createExecutionContext());
  return { fetch, runners };
}

const otherProtocol = { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION + 41) };

afterEach(() => vi.restoreAllMocks());

describe("a made-up token on the internal routes", () => {
  it("gets 401 before the protocol is compared or any runner asked, on every route, and nothing is logged as an error", async () => {
    const logged = errorLines();
    const { fetch, runners } = worker();
    const pid = `job_madeUp${crypto.randomUUID().replace(/-/g, "").slice(0, 14)}.1`;
    const madeUp = { authorization: `Bearer ${newAttemptToken()}` };
    for (const protocol of [otherProtocol, protocolHeader, {}]) {
      const answers = [
        await fetch(PROCESSOR_EVENTS_PATH, { method: "POST", headers: { ...madeUp, ...protocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, state: "failed", progress: 5, error: { code: "processing_failed", message: "forged" } }) }),
        await fetch(`${PROCESSOR_OUTPUTS_PATH}/${pid}/image.webp`, { method: "PUT", headers: { ...madeUp, ...protocol, "content-type": "image/webp", "content-length": "4" }, body: "RIFF" }),
        await fetch(`${PROCESSOR_INPUTS_PATH}/${pid}`, { headers: { ...madeUp, ...protocol } }),
        await fetch(PROCESSOR_PLAYABLE_PATH, { method: "POST", headers: { ...madeUp, ...protocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, url: "stream/master.m3u8" }) }),
        await fetch(PROCESSOR_PLAYABLE_PATH, { method: "POST", headers: { ...protocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, url: "stream/master.m3u8" }) }),
        // No token at all.
        await fetch(PROCESSOR_EVENTS_PATH, { method: "POST", headers: { ...protocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, state: "running", progress: 5 }) }),
      ];
      for (const answer of answers) {
        const text = await answer.text();
        expect({ status: answer.status, text }).toEqual({ status: 401, text: "missing or wrong attempt credentials" });
        expect(answer.headers.get(PROTOCOL_HEADER)).toBeNull();
      }
    }
    expect(runners).toEqual([]);
    expect(logged(/./)).toEqual([]);
  });

  it("gets 401 for an attempt of a real job that never began, without its runner being asked", async () => {
    const { orgId } = await newKey();
    const row = await storedJob(orgId, { status: "processing", attempt: 1, startedAt: Date.now() });
    const { fetch, runners } = worker();
    for (const pid of [`${row.id}.2`, `${row.id}.0`, `${row.id}.x`, row.id]) {
      const answer = await fetch(PROCESSOR_EVENTS_PATH, { method: "POST", headers: { authorization: `Bearer ${newAttemptToken()}`, ...otherProtocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, state: "running", progress: 5 }) });
      // An id that is not an attempt's is a 400 (the body is wrong); none reaches a runner.
      expect([400, 401], pid).toContain(answer.status);
      // Nothing of the protocol (the number alone could be part of the job's random id).
      expect(await answer.text()).not.toMatch(/protocol|version|mismatch/i);
    }
    expect(runners).toEqual([]);
  });

  it("gets 401 from the runner for an attempt that runs, without the protocol named; the attempt's own processor still learns of a version mismatch", async () => {
    const { key, id, pid } = await runningJob();
    const { fetch } = worker();
    const event = (token: string) =>
      fetch(PROCESSOR_EVENTS_PATH, { method: "POST", headers: { authorization: `Bearer ${token}`, ...otherProtocol, "content-type": "application/json" }, body: JSON.stringify({ id: pid, state: "running", progress: 5 }) });
    const forged = await event(newAttemptToken());
    expect({ status: forged.status, text: await forged.text() }).toEqual({ status: 401, text: "missing or wrong attempt credentials" });
    const own = await event((await attemptToken(pid))!);
    expect(own.status).toBe(409);
    expect(await own.json()).toMatchObject({ error: "protocol_mismatch", worker: PROCESSOR_PROTOCOL_VERSION });
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
  });
});

describe("the admin API without ADMIN_TOKEN", () => {
  it("answers as to a wrong token, saying nothing of the configuration", async () => {
    const { fetch } = worker({ ADMIN_TOKEN: "" } as Partial<Env>);
    const answer = await fetch("/admin/keys?org=x", { headers: { authorization: "Bearer guess" } });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: { code: "unauthorized", message: "missing or wrong admin token" } });
  });
});

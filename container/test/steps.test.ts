import { describe, expect, it } from "vitest";
import { StepLog, step } from "../src/steps.ts";
import { runTool } from "../src/tools/spawn.ts";

const options = { signal: new AbortController().signal, timeoutMs: 10_000 };

describe("StepLog", () => {
  it("records each tool run in the log of the job that started it, even with jobs running at once", async () => {
    const a = new StepLog();
    const b = new StepLog();
    await Promise.all([
      a.run(async () => {
        await runTool("true", [], options);
        await runTool("echo", ["a"], options);
      }),
      b.run(() => runTool("echo", ["b"], options)),
    ]);
    expect(a.list().map((s) => s.step)).toEqual(["true", "echo"]);
    expect(b.list().map((s) => s.step)).toEqual(["echo"]);
    expect(Object.keys(a.totals())).toEqual(["true", "echo"]);
  });

  it("records a step that fails, and sums the runs of a step by name", async () => {
    const log = new StepLog();
    await log.run(async () => {
      await step("sharp encode", async () => {});
      await expect(step("sharp encode", async () => Promise.reject(new Error("broken")))).rejects.toThrow("broken");
    });
    expect(log.list()).toHaveLength(2);
    const total = log.list().reduce((sum, s) => sum + s.ms, 0);
    expect(log.totals()).toEqual({ "sharp encode": total });
  });

  it("records when each step started, so that steps run at once show as overlapping", async () => {
    const log = new StepLog();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await log.run(() =>
      Promise.all([
        step("long", async () => {
          await gate;
          await new Promise((resolve) => setImmediate(resolve));
        }),
        step("short", async () => release()),
      ]),
    );
    const [short, long] = log.list();
    expect([short!.step, long!.step]).toEqual(["short", "long"]);
    // "short" started while "long" ran, and ended first (atMs and ms are each rounded to the ms: 1 ms of slack).
    expect(short!.atMs).toBeGreaterThanOrEqual(long!.atMs);
    expect(short!.atMs).toBeLessThanOrEqual(long!.atMs + long!.ms + 1);
  });

  it("records nothing of work started outside the log's run", async () => {
    const log = new StepLog();
    await log.run(() => step("inside", async () => {}));
    await expect(step("outside", async () => 42)).resolves.toBe(42);
    expect(log.list().map((s) => s.step)).toEqual(["inside"]);
  });
});

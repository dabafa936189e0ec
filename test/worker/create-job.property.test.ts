// The real route on generated create bodies: an answer for each, never a 500, and every
// 400 names fields of the body that was sent.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBody, pathInRequest } from "../support/create-bodies.ts";
import { call, newKey } from "./helpers.ts";

describe("POST /v1/jobs on generated bodies", () => {
  it("answers 201 or a 400 naming fields of the request, never a 500", async () => {
    const { key } = await newKey({ test: true });
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(createBody, async (body) => {
        const res = await call("POST", "/v1/jobs", { key, body: JSON.stringify(body) });
        statuses.add(res.status);
        expect([201, 400], res.text).toContain(res.status);
        if (res.status === 400) {
          expect(res.json.error.code).toBe("invalid_input");
          for (const { path } of res.json.error.details as { path: string }[]) expect(pathInRequest(body, path), `${path} in ${JSON.stringify(body)}`).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
    expect(statuses.has(400)).toBe(true);
  });
});

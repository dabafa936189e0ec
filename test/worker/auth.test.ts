import { describe, expect, it } from "vitest";
import { call, newKey, testEnv } from "./helpers.ts";

describe("API key authentication", () => {
  it("refuses a request without a key with 401 unauthorized", async () => {
    const res = await call("GET", "/v1/jobs");
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: "unauthorized", message: expect.stringContaining("Authorization") });
  });

  it("refuses a malformed and an unknown key", async () => {
    expect((await call("GET", "/v1/jobs", { headers: { authorization: "Basic abc" } })).status).toBe(401);
    const unknown = await call("GET", "/v1/jobs", { key: `sk_live_${"x".repeat(32)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error.code).toBe("unauthorized");
  });

  it("accepts a fresh key and refuses it on the next request after revocation", async () => {
    const { key, id } = await newKey();
    expect((await call("GET", "/v1/jobs", { key })).status).toBe(200);
    const revoke = await call("POST", "/admin/keys/revoke", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` }, body: { key: id } });
    expect(revoke.status).toBe(200);
    const after = await call("GET", "/v1/jobs", { key });
    expect(after.status).toBe(401);
  });

  it("stores only a hash of the key", async () => {
    const { key, id } = await newKey();
    const row = await testEnv.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(id).first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row!.prefix).toBe(key.slice(0, 12));
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("makes live and test keys with their prefixes", async () => {
    expect((await newKey()).key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect((await newKey({ test: true })).key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
  });

  it("closes the admin API to a wrong token", async () => {
    const res = await call("POST", "/admin/keys", { headers: { authorization: "Bearer nope" }, body: { org: "x" } });
    expect(res.status).toBe(401);
  });
});

// `npm run admin -- <command>`: organizations and API keys through the admin API.
//   create-key --org acme [--plan free|pro|enterprise] [--test] [--name NAME]
//   revoke-key <key id or prefix>
//   list-keys --org acme
//   set-plan --org acme --plan pro
//   create-user --org acme --email ada@example.com
// Local by default (ADMIN_TOKEN from .dev.vars, http://127.0.0.1:8787). For a deployed
// service set MEDIA_JOBS_ADMIN_URL and MEDIA_JOBS_ADMIN_TOKEN, or pass --url and --token.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { readDevVars } from "./dev-vars.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    org: { type: "string" },
    plan: { type: "string" },
    test: { type: "boolean", default: false },
    name: { type: "string" },
    email: { type: "string" },
    url: { type: "string" },
    token: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});

const usage = `usage: npm run admin -- <command> [options]
  create-key --org SLUG [--plan free|pro|enterprise] [--test] [--name NAME]
                                 create a key (and the organization if needed); prints the key last
  revoke-key KEY_ID_OR_PREFIX    revoke a key (id key_… or prefix sk_live_Ab12)
  list-keys --org SLUG           list an organization's keys
  set-plan --org SLUG --plan free|pro|enterprise
                                 change an organization's plan (new admissions use it at once)
  create-user --org SLUG --email EMAIL
                                 add a dashboard member; prints a generated password once
options: --url URL (default $MEDIA_JOBS_ADMIN_URL or http://127.0.0.1:8787)
         --token TOKEN (default $MEDIA_JOBS_ADMIN_TOKEN or ADMIN_TOKEN in .dev.vars)`;

const [command, ...rest] = positionals;
if (values.help || !command) {
  console.log(usage);
  process.exit(command ? 0 : 1);
}

const base = (values.url ?? process.env.MEDIA_JOBS_ADMIN_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const token = values.token ?? process.env.MEDIA_JOBS_ADMIN_TOKEN ?? readDevVars(`${root}/.dev.vars`).ADMIN_TOKEN;
if (!token) fail("no admin token: set MEDIA_JOBS_ADMIN_TOKEN, pass --token, or run `npm run dev` once to create .dev.vars");

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

async function call(method: string, path: string, body?: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(`${base}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    fail(`cannot reach ${base}; is the service running (npm run dev)?`);
  }
  const data = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) fail(`${response.status}: ${data.error?.message ?? "request failed"}`);
  return data;
}

switch (command) {
  case "create-key": {
    if (!values.org) fail("create-key needs --org");
    const created = await call("POST", "/keys", { org: values.org, plan: values.plan, mode: values.test ? "test" : "live", name: values.name ?? "" });
    console.log(`organization ${created.org.slug} (${created.org.id}), plan ${created.org.plan}`);
    console.log(`${created.mode} key ${created.id}; shown once, store it now:`);
    console.log(created.key);
    break;
  }
  case "revoke-key": {
    const key = rest[0];
    if (!key) fail("revoke-key needs a key id (key_…) or prefix (sk_live_…)");
    await call("POST", "/keys/revoke", { key });
    console.log(`revoked ${key}`);
    break;
  }
  case "list-keys": {
    if (!values.org) fail("list-keys needs --org");
    const listed = await call("GET", `/keys?org=${encodeURIComponent(values.org)}`);
    console.log(`organization ${listed.org.slug}, plan ${listed.org.plan}`);
    for (const k of listed.data) {
      console.log(`${k.id}  ${k.prefix}…  ${k.mode}  created ${k.createdAt}  last used ${k.lastUsedAt ?? "never"}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ""}${k.name ? `  ${k.name}` : ""}`);
    }
    break;
  }
  case "set-plan": {
    if (!values.org || !values.plan) fail("set-plan needs --org and --plan");
    const { org } = await call("POST", `/orgs/${encodeURIComponent(values.org)}/plan`, { plan: values.plan });
    console.log(`organization ${org.slug} is now on the ${org.plan} plan`);
    break;
  }
  case "create-user": {
    if (!values.org || !values.email) fail("create-user needs --org and --email");
    const created = await call("POST", "/users", { org: values.org, email: values.email });
    console.log(`user ${created.email} (${created.id}) in organization ${created.org.slug}`);
    console.log(`sign in at ${base}/dashboard with this password; shown once, store it now:`);
    console.log(created.password);
    break;
  }
  default:
    fail(`unknown command ${command}\n${usage}`);
}

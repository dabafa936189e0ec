// What every dashboard handler needs from its request: the page's context type, the
// signed-in viewer that the layout shows, and one field of a posted form.
import type { Context } from "hono";

/** `nonce`: the page's CSP nonce, set for every dashboard request (index.tsx). */
export type DashboardEnv = { Bindings: Env; Variables: { nonce: string } };
export type Ctx = Context<DashboardEnv>;

export const viewer = (c: Ctx) => ({ email: c.get("user").email, orgSlug: c.get("org").slug, csrfToken: c.get("csrfToken") });

export async function formText(c: Ctx, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : "";
}

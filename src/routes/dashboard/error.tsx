// Error pages for the dashboard: the status and a sentence a member can act on.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { randomToken } from "../../lib/crypto.ts";
import { Layout } from "./layout.tsx";

const TITLES: Partial<Record<number, string>> = {
  400: "That request was not valid",
  403: "Request refused",
  404: "Not found",
  413: "Too large",
  500: "Something went wrong",
};

export function errorPage(c: Context, status: ContentfulStatusCode, message: string) {
  // The page-headers middleware sets a nonce; an error before it ran gets its own.
  const nonce = (c.get("nonce" as never) as string | undefined) ?? randomToken(22);
  return c.html(
    <Layout title={TITLES[status] ?? "Error"} nonce={nonce}>
      <p>{message}</p>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
    </Layout>,
    status,
  );
}

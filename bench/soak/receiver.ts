// The soak's webhook receiver: checks both signatures of every request (the service's
// x-service-signature with the SDK's verifyWebhook, Standard Webhooks with its reference
// library) and records when each job's deliveries came and what it answered. Between
// failFrom and failUntil it answers 503, as a receiver that is down would.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { verifyWebhook } from "../../packages/client/src/webhooks.ts";

export interface Receipt {
  /** Date.now() when the request arrived. */
  at: number;
  jobId: string | undefined;
  webhookId: string;
  /** The job status the body carries. */
  status: string | undefined;
  answered: number;
  /** Why a signature check failed; undefined when both passed. */
  invalid?: string;
}

export interface Receiver {
  /** The URL to give a job of `org` as its webhookUrl. */
  url(org: string): string;
  receipts: Receipt[];
  /** Answers 503 from now for `ms`. */
  failFor(ms: number): { from: number; until: number };
  close(): Promise<void>;
}

/** `secrets` maps an organization's slug to the webhookSecret its jobs carry. */
export async function startReceiver(secrets: Map<string, string>): Promise<Receiver> {
  const receipts: Receipt[] = [];
  let down = { from: 0, until: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const at = Date.now();
      const raw = Buffer.concat(chunks).toString("utf8");
      const org = decodeURIComponent(new URL(req.url ?? "/", "http://receiver").pathname.split("/").at(-1) ?? "");
      const secret = secrets.get(org);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let invalid: string | undefined;
      let body: { id?: string; status?: string } = {};
      try {
        if (!secret) throw new Error(`no secret for organization "${org}"`);
        body = (await verifyWebhook(raw, headers, secret)) as typeof body;
        new Webhook(secret, { format: "raw" }).verify(raw, headers);
      } catch (error) {
        invalid = String((error as Error).message ?? error);
        try {
          body = JSON.parse(raw) as typeof body;
        } catch {
          // Left empty: the receipt then names no job.
        }
      }
      const answered = invalid ? 400 : at >= down.from && at < down.until ? 503 : 204;
      receipts.push({ at, jobId: body.id, webhookId: headers["webhook-id"] ?? "", status: body.status, answered, ...(invalid ? { invalid } : {}) });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (org) => `${base}/hooks/${encodeURIComponent(org)}`,
    receipts,
    failFor(ms) {
      const from = Date.now();
      down = { from, until: from + ms };
      return down;
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
}

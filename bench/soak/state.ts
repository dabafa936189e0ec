// Reads the service's local state directly, as wrangler dev persists it (--persist-to):
// D1 and R2 are SQLite files of Miniflare's Durable Objects under v3/. Opened read-only
// for each read, so the soak never holds a lock workerd needs; a read that meets a write
// in progress is tried again.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sleep } from "../support.ts";

async function sqliteFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".sqlite")).map((n) => join(dir, n));
}

async function query<T>(file: string, sql: string, params: (string | number)[] = []): Promise<T[]> {
  for (let tries = 1; ; tries++) {
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(file, { readOnly: true, timeout: 2_000 });
      return db.prepare(sql).all(...params) as T[];
    } catch (error) {
      if (tries >= 5 || !/busy|locked/i.test(String(error))) throw error;
      await sleep(50 * tries);
    } finally {
      db?.close();
    }
  }
}

export interface JobRowLite {
  id: string;
  org_id: string;
  type: string;
  status: string;
  attempt: number;
  error_code: string | null;
  error_message: string | null;
  result: string | null;
  webhook_url: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
}

export interface DeliveryRow {
  id: string;
  job_id: string;
  trigger: string;
  status: string;
  attempts: number;
  created_at: number;
  completed_at: number | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  at: number;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface LocalState {
  /** Jobs `processing` right now, per organization id. */
  processingByOrg(): Promise<Map<string, string[]>>;
  /** Jobs that reached a final state (completed_at is set for every final state). */
  endedCount(): Promise<number>;
  jobs(): Promise<JobRowLite[]>;
  organizations(): Promise<{ id: string; slug: string; plan: string }[]>;
  deliveries(): Promise<DeliveryRow[]>;
  deliveryAttempts(): Promise<AttemptRow[]>;
  /**
   * Concurrency slots as the organizations' limiters hold them (the OrgLimiter Durable
   * Objects' own SQLite storage): job id → when its lease runs out. Undefined when no
   * limiter storage with a `slots` table is found.
   */
  slots(): Promise<Map<string, number> | undefined>;
  /** Every R2 object key of the outputs bucket. */
  objectKeys(): Promise<string[]>;
}

export async function openLocalState(statePath: string): Promise<LocalState> {
  const d1 = await findFile(join(statePath, "v3/d1/miniflare-D1DatabaseObject"), "SELECT 1 FROM sqlite_master WHERE name = 'jobs'");
  const d1Query = <T>(sql: string, params?: (string | number)[]) => query<T>(d1, sql, params);
  return {
    async processingByOrg() {
      const rows = await d1Query<{ id: string; org_id: string }>(`SELECT id, org_id FROM jobs WHERE status = 'processing'`);
      const byOrg = new Map<string, string[]>();
      for (const row of rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row.id]);
      return byOrg;
    },
    async endedCount() {
      const rows = await d1Query<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE completed_at IS NOT NULL`);
      return rows[0]?.n ?? 0;
    },
    jobs: () =>
      d1Query<JobRowLite>(
        `SELECT id, org_id, type, status, attempt, error_code, error_message, result, webhook_url, created_at, started_at, completed_at FROM jobs`,
      ),
    organizations: () => d1Query(`SELECT id, slug, plan FROM organizations`),
    deliveries: () => d1Query<DeliveryRow>(`SELECT id, job_id, "trigger", status, attempts, created_at, completed_at FROM webhook_deliveries`),
    deliveryAttempts: () => d1Query<AttemptRow>(`SELECT delivery_id, attempt, at, status_code, error, latency_ms FROM webhook_attempts`),
    async slots() {
      const root = join(statePath, "v3/do");
      const dirs = (await readdir(root).catch(() => [] as string[])).filter((d) => d.endsWith("-OrgLimiter"));
      let found = false;
      const slots = new Map<string, number>();
      for (const dir of dirs) {
        for (const file of await sqliteFiles(join(root, dir))) {
          const rows = await query<{ job_id: string; lease_expires_at: number }>(file, `SELECT job_id, lease_expires_at FROM slots`).catch(() => undefined);
          if (!rows) continue;
          found = true;
          for (const row of rows) slots.set(row.job_id, row.lease_expires_at);
        }
      }
      return found ? slots : undefined;
    },
    async objectKeys() {
      // The R2 bucket's object index; the bytes are blobs beside it.
      const keys: string[] = [];
      for (const file of await sqliteFiles(join(statePath, "v3/r2/miniflare-R2BucketObject"))) {
        const rows = await query<{ key: string }>(file, `SELECT key FROM _mf_objects`).catch(() => []);
        keys.push(...rows.map((r) => r.key));
      }
      return keys;
    },
  };
}

/** The SQLite file in `dir` for which `probe` returns a row (wrangler names them by hash). */
async function findFile(dir: string, probe: string): Promise<string> {
  for (const file of await sqliteFiles(dir)) {
    const rows = await query(file, probe).catch(() => []);
    if (rows.length > 0) return file;
  }
  throw new Error(`no SQLite file in ${dir} answers "${probe}": has wrangler dev applied the migrations there?`);
}

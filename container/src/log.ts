// One JSON line per event, on stdout: easy to read locally and to ship in production.
// LOG_LEVEL (debug, info, warn, error, silent) is read per call so tests can quiet it.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

export function log(level: "debug" | "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
  const threshold = LEVELS[(process.env.LOG_LEVEL as keyof typeof LEVELS) ?? "info"] ?? LEVELS.info;
  if (LEVELS[level] < threshold) return;
  console.log(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
}

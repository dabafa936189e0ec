// Structured logs: one JSON object per line, with the request or job id it is about.
// Never pass secrets or whole API keys. LOG_LEVEL (debug, info, warn, error) is applied by
// each entry point (fetch, queue, cron, Durable Objects) through configureLogging.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

let threshold: number = LEVELS.info;

export function configureLogging(env: { LOG_LEVEL?: string }): void {
  threshold = LEVELS[env.LOG_LEVEL as Level] ?? LEVELS.info;
}

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ level, message, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

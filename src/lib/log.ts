// Structured logs: one JSON object per line, with the request or job id it is about.
// Never pass secrets or whole API keys.
export function log(level: "debug" | "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

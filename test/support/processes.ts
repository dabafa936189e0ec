// Which processes are still running on a job's files: the check that nothing is left behind.
import { readdir, readFile } from "node:fs/promises";

/** Pids and command lines of the processes whose command line mentions `needle` (Linux /proc). */
export async function processesMentioning(needle: string): Promise<{ pid: number; cmd: string }[]> {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmd = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmd.includes(needle)) found.push({ pid: Number(entry), cmd: cmd.replaceAll("\0", " ") });
  }
  return found;
}

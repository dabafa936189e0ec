// Each attempt's tools, and each ready process, run under a uid and gid of their own from a
// pool, with rlimits, in a directory only they and the processor reach (docs/security.md,
// "Attempts isolated from each other"). tools/spawn.ts runs a tool under the current identity.
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, link, lstat, mkdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Config } from "./config.ts";
import { stopped } from "./errors.ts";
import { newRelaySecret } from "./tool-relay.ts";

export interface ToolLimits {
  cpuS: number;
  addressSpaceBytes: number;
  fileBytes: number;
  processes: number;
}

/** Who a tool runs as: its uid and gid (the same number), its HOME and TMPDIR, its limits. */
export interface ToolIdentity {
  uid: number;
  gid: number;
  home: string;
  limits: ToolLimits;
  /**
   * What its tools prove themselves with to the tool relay (tool-relay.ts), in their
   * environment (tools/spawn.ts toolEnv), which only this uid reads: new with each lease.
   */
  relaySecret?: string;
}

export type IsolationState = { on: true } | { on: false; reason: string };

/**
 * The setpriv options that run a command as `uid`: real, effective and saved ids, no
 * supplementary groups, no privilege gained through a set-uid file, and killed when the
 * processor dies (set after the uid change, which would clear it: prctl(2) PR_SET_PDEATHSIG).
 */
export function identityArgs(uid: number, gid: number): string[] {
  return [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--no-new-privs", "--pdeathsig", "SIGKILL"];
}

/** prlimit's options for `limits`: soft = hard, so the CPU limit kills with SIGKILL (a tool cannot catch it). */
export function limitArgs(limits: ToolLimits, cpuS = limits.cpuS): string[] {
  return [`--cpu=${cpuS}`, `--as=${limits.addressSpaceBytes}`, `--fsize=${limits.fileBytes}`, `--nproc=${limits.processes}`];
}

export function toolLimits(config: Pick<Config, "TOOL_MAX_CPU_S" | "TOOL_MAX_ADDRESS_SPACE_BYTES" | "TOOL_MAX_FILE_BYTES" | "TOOL_MAX_PROCESSES">): ToolLimits {
  return { cpuS: config.TOOL_MAX_CPU_S, addressSpaceBytes: config.TOOL_MAX_ADDRESS_SPACE_BYTES, fileBytes: config.TOOL_MAX_FILE_BYTES, processes: config.TOOL_MAX_PROCESSES };
}

const probed = new Map<number, string | undefined>();

/** Why tools cannot run under `uid` here, or undefined when they can (tried once per process). */
function whyNot(uid: number): string | undefined {
  if (process.platform !== "linux") return `this is not Linux (${process.platform})`;
  const me = process.getuid?.();
  if (me !== 0) return `the processor runs as uid ${me}, not root, so it cannot run tools under uids of their own`;
  if (!probed.has(uid)) {
    const run = spawnSync("setpriv", [...identityArgs(uid, uid), "--", "prlimit", "--cpu=1", "--", "true"], { encoding: "utf8", timeout: 10_000 });
    const error = run.error as NodeJS.ErrnoException | undefined;
    probed.set(
      uid,
      error?.code === "ENOENT"
        ? "setpriv (util-linux) is not installed"
        : run.status !== 0
          ? `setpriv or prlimit failed (${(run.stderr || String(error ?? `exit ${run.status ?? run.signal}`)).trim().slice(0, 200)}): the processor needs CAP_SETUID and CAP_SETGID`
          : undefined,
    );
  }
  return probed.get(uid);
}

/**
 * Whether this processor isolates its tools; ISOLATION=on where it cannot throws (the processor
 * refuses to start). `programs` are files a tool started under a pool uid runs from (the image
 * tool's Node, its script, sharp): a checkout in a directory closed to others (a fresh
 * `mktemp -d`, a home of mode 0700) would make every such start fail.
 */
export function decideIsolation(config: Pick<Config, "ISOLATION" | "TOOL_UID_BASE" | "TOOL_UIDS" | "workDir">, programs: Record<string, string> = {}): IsolationState {
  if (config.ISOLATION === "off") return { on: false, reason: "ISOLATION=off" };
  // Tried with the uid just past the pool's: one that a reclaim (kill -9 -1 as a pool uid) never reaches.
  const reason =
    whyNot(config.TOOL_UID_BASE + config.TOOL_UIDS) ??
    closedAbove(config.workDir, `WORK_DIR ${config.workDir}`) ??
    Object.entries(programs).reduce<string | undefined>((found, [what, path]) => found ?? closedAbove(path, `${what} (${path})`), undefined);
  if (!reason) return { on: true };
  if (config.ISOLATION === "on") throw new Error(`ISOLATION=on, but tools cannot be isolated here: ${reason}`);
  return { on: false, reason };
}

/** Why tools could not reach `path`: a directory above it they may not pass (no x for others). */
function closedAbove(path: string, what: string): string | undefined {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    const mode = statSyncOrUndefined(dir)?.mode;
    if (mode !== undefined && (mode & 0o001) === 0) {
      return `tools cannot pass through ${dir} (mode ${(mode & 0o7777).toString(8)}) to ${what}; let others pass it (chmod o+x) or move it`;
    }
    if (dir === dirname(dir)) return undefined;
  }
}

function statSyncOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

const current = new AsyncLocalStorage<ToolIdentity | undefined>();

/** Runs `work` with `identity` as the one its tools run under (spawn.ts), as steps.ts does for a job's step log. */
export function withIdentity<T>(identity: ToolIdentity | undefined, work: () => T): T {
  return current.run(identity, work);
}

/** The identity tools started now run under; undefined outside an isolated attempt. */
export function currentIdentity(): ToolIdentity | undefined {
  return current.getStore();
}

/**
 * A directory the current attempt's tools write in (a Ghostscript temp directory, a decode's
 * output): made by the processor, then root's, sticky and group-writable for the attempt
 * (ToolLease.directory); a plain directory outside an isolated attempt.
 */
export async function toolDirectory(path: string): Promise<void> {
  const identity = currentIdentity();
  await mkdir(path, { mode: 0o700 });
  if (!identity) return;
  await chown(path, 0, identity.gid);
  await chmod(path, 0o1770);
}

/** Where held uids are marked, one file per uid naming the processor's pid: shared by every processor on the machine. */
const LOCK_DIR = join(tmpdir(), "media-jobs-tool-uids");
/** World-writable directories a tool can leave files in: cleared of the uid's entries when it is reclaimed. */
const SHARED_WRITABLE = ["/tmp", "/var/tmp", "/dev/shm"];
const WAIT_FOR_UID_MS = 100;

/**
 * The pool of uids: TOOL_UIDS from TOOL_UID_BASE. A uid is held by one attempt or ready process
 * at a time, machine-wide (a lock file created exclusively; one whose processor is gone is
 * taken over, its processes killed first), and reclaimed when its holder ends: its processes
 * are killed, its directories closed to it, its files in the world-writable directories removed.
 */
export class ToolIdentities {
  readonly #base: number;
  readonly #count: number;
  readonly #limits: ToolLimits;
  #next = 0;
  #ready?: Promise<void>;

  constructor(config: Pick<Config, "TOOL_UID_BASE" | "TOOL_UIDS"> & Parameters<typeof toolLimits>[0]) {
    this.#base = config.TOOL_UID_BASE;
    this.#count = config.TOOL_UIDS;
    this.#limits = toolLimits(config);
  }

  /** Whether `uid` is one this pool hands out (the processor's API refuses connections from them: server.ts). */
  owns(uid: number): boolean {
    return uid >= this.#base && uid < this.#base + this.#count;
  }

  /** A free uid, waiting for one while all are held; rejects as `stopped` decides when `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<ToolLease> {
    for (;;) {
      const lease = await this.tryAcquire();
      if (lease) return lease;
      if (signal?.aborted) throw stopped(signal);
      await new Promise((resolve) => setTimeout(resolve, WAIT_FOR_UID_MS));
    }
  }

  /** A free uid now, or undefined when all are held. */
  async tryAcquire(): Promise<ToolLease | undefined> {
    await (this.#ready ??= ownedDirectory(LOCK_DIR));
    for (let tried = 0; tried < this.#count; tried++) {
      // Round robin: a uid just given back is the last to be taken again.
      const uid = this.#base + ((this.#next + tried) % this.#count);
      if (await lock(uid)) {
        this.#next = (uid - this.#base + 1) % this.#count;
        return new ToolLease({ uid, gid: uid, home: "", limits: this.#limits, relaySecret: newRelaySecret() });
      }
    }
    return undefined;
  }
}

/** Marks `uid` held by this process; false when another live holder has it. A stale mark's processes are killed before it is taken. */
async function lock(uid: number): Promise<boolean> {
  const path = join(LOCK_DIR, String(uid));
  // The mark appears whole or not at all (a link to a file already written): another
  // processor never reads one half-made, which it would take for a dead holder's.
  const mine = join(LOCK_DIR, `.${process.pid}.${uid}.${randomBytes(6).toString("hex")}`);
  await writeFile(mine, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(mine, path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await holderOf(path);
      // Gone meanwhile (released): tried again.
      if (holder === 0) continue;
      if (alive(holder)) return false;
      // Its processor died (its tools died with it: pdeathsig); anything that escaped is killed
      // now. One processor at a time takes a mark over, and only the dead holder's.
      if (!(await takeOver(path, holder, uid))) return false;
    }
    return false;
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

const holderOf = async (path: string) => Number(await readFile(path, "utf8").catch(() => ""));

/** Where a processor taking over a dead holder's mark holds its turn (mkdir is atomic); a turn older than TAKEOVER_TURN_MS is a dead taker's. */
const TAKEOVER = join(LOCK_DIR, ".takeover");
const TAKEOVER_TURN_MS = 10_000;

/** Removes the mark at `path` if `holder` (dead) still holds it, with its uid's processes killed first; false when another took it meanwhile. */
async function takeOver(path: string, holder: number, uid: number): Promise<boolean> {
  try {
    await mkdir(TAKEOVER);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const since = (await lstat(TAKEOVER).catch(() => undefined))?.mtimeMs;
    if (since !== undefined && Date.now() - since > TAKEOVER_TURN_MS) await rm(TAKEOVER, { recursive: true, force: true });
    return false;
  }
  try {
    if ((await holderOf(path)) !== holder) return false;
    await killAll(uid);
    await unlink(path).catch(() => undefined);
    return true;
  } finally {
    await rm(TAKEOVER, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Creates `dir` for root alone (0700), or checks that it is so: anything else there is refused. */
async function ownedDirectory(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => (error.code === "EEXIST" ? undefined : Promise.reject(error)));
  const stats = await lstat(dir);
  if (!stats.isDirectory() || stats.uid !== 0 || (stats.mode & 0o077) !== 0) throw new Error(`${dir} must be a directory of root's with mode 0700`);
}

/**
 * Kills every process of `uid`: kill(-1) as that uid signals exactly the processes it may
 * signal (its own), so one that left its process group (setsid, a double fork) goes too.
 */
export function killAll(uid: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "/bin/sh", "-c", "kill -9 -1 2>/dev/null; exit 0"], { stdio: "ignore", env: { PATH: "/usr/bin:/bin" } });
    child.once("error", () => resolve());
    child.once("close", () => resolve());
  });
}

/** One held uid: its identity for tools, the directories it works in, and its reclaim. */
export class ToolLease {
  readonly identity: ToolIdentity;
  readonly #dirs: string[] = [];
  #released?: Promise<void>;

  constructor(identity: ToolIdentity) {
    this.identity = identity;
  }

  /**
   * Makes `dir` the identity's work directory (emptied first): root's, group-writable for the
   * identity, sticky (so a tool cannot rename or remove what the processor put there: the
   * names it reads and writes stay its own; attempt-files.ts), closed to everyone else; with
   * `tmp/`, the identity's own (0700), as its HOME and TMPDIR.
   */
  async prepare(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    await this.directory(dir);
    this.#dirs.push(dir);
    const home = join(dir, "tmp");
    await mkdir(home, { mode: 0o700 });
    await chown(home, this.identity.uid, this.identity.gid);
    this.identity.home = home;
  }

  /** A directory the identity's tools write in, made by the processor: root's, sticky, group-writable for the identity (mode 01770). */
  directory(path: string): Promise<void> {
    // After mkdir: its mode is cut by the umask.
    return withIdentity(this.identity, () => toolDirectory(path));
  }

  /**
   * Reclaims the uid, once its tools have ended: any process of it left is killed and its
   * directories are closed to it (root's alone, 0700) before this resolves; then, off the
   * caller's path (a listing of /tmp), its files in the world-writable directories are removed
   * and it is free for another holder (`reclaimed`).
   */
  release(): Promise<void> {
    return (this.#released ??= (async () => {
      const { uid } = this.identity;
      await killAll(uid);
      for (const dir of this.#dirs) await chmod(dir, 0o700).catch(() => undefined);
      this.reclaimed = (async () => {
        await removeOwnedBy(SHARED_WRITABLE, uid);
        await unlink(join(LOCK_DIR, String(uid))).catch(() => undefined);
      })();
    })());
  }

  /** Resolves once the uid is free again (after `release`). */
  reclaimed?: Promise<void>;
}

/**
 * Removes the entries of `uid` in `dirs` (not below: a deeper one is inside one of them), as
 * that uid: in a child process, not in this one's thread pool (a developer's /tmp holds
 * thousands of entries), and with no more rights than the tool that made them.
 */
function removeOwnedBy(dirs: string[], uid: number): Promise<void> {
  return new Promise((resolve) => {
    const args = [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "find", ...dirs, "-mindepth", "1", "-maxdepth", "1", "-user", String(uid), "-exec", "rm", "-rf", "--", "{}", "+"];
    const child = spawn("setpriv", args, { stdio: "ignore", env: { PATH: "/usr/bin:/bin" } });
    child.once("error", () => resolve());
    child.once("close", () => resolve());
  });
}

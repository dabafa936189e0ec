// The processor's own reads and writes in a directory its tools write in. The processor is
// root there and a tool may be hostile: where the processor expects a file, a tool may have
// left a symlink (to /etc/shadow, to another attempt's input), a hard link, or a FIFO that
// blocks a reader. The directories are root's and sticky (isolation.ts ToolLease.prepare), so
// a tool controls only the names it created itself, never a parent directory of the processor's.
import { constants } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { JobFailure } from "./errors.ts";

/**
 * Opens a file a tool wrote, for reading: never through a symlink (O_NOFOLLOW), never a FIFO
 * or a device (O_NONBLOCK, then a regular file is required), never a file with a second name
 * (a hard link); with `uid`, never one of another uid than that tool's or the processor's.
 */
export async function openToolFile(path: string, uid?: number): Promise<FileHandle> {
  let file: FileHandle;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw refused(path, "a symbolic link");
    throw error;
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw refused(path, "not a regular file");
    if (stats.nlink !== 1) throw refused(path, "a hard link");
    if (stats.uid !== 0 && uid !== undefined && stats.uid !== uid) throw refused(path, `a file of uid ${stats.uid}`);
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

/** A tool's file's bytes, read as openToolFile opens it. */
export async function readToolFile(path: string): Promise<Buffer> {
  const file = await openToolFile(path);
  try {
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/** A tool's file's size, checked as openToolFile checks it. */
export async function toolFileSize(path: string, uid?: number): Promise<number> {
  const file = await openToolFile(path, uid);
  try {
    return (await file.stat()).size;
  } finally {
    await file.close();
  }
}

/**
 * Takes a tool's finished file for the processor (checked as openToolFile checks it): root's
 * from now on, readable by all, so the attempt's tools can still read it but never change it
 * (an output already published). Without isolation (uid undefined) it is left as it is.
 * Resolves to its size.
 */
export async function takeToolFile(path: string, uid?: number): Promise<number> {
  const file = await openToolFile(path, uid);
  try {
    if (uid !== undefined) {
      await file.chown(0, 0);
      await file.chmod(0o644);
    }
    return (await file.stat()).size;
  } finally {
    await file.close();
  }
}

/**
 * Makes `path` a new, empty file of the processor's before the processor writes it by name
 * (sharp's toFile, writeFile, copyFile): whatever a tool put there is removed, and the file is
 * created exclusively and never through a symlink (O_CREAT|O_EXCL), so a name planted again
 * meanwhile fails instead of being followed. Once root's, in a sticky directory, no tool can
 * replace it.
 */
export async function claimFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  await file.close();
}

function refused(path: string, what: string): JobFailure {
  return new JobFailure("processing_failed", "a tool left something other than its output where the processor reads it; the attempt was stopped", {
    cause: new Error(`${path} is ${what}`),
  });
}

// A file already on local disk as a job's input, and a local file's first bytes (what
// sniffing reads).
import { open } from "node:fs/promises";
import type { ProcessorInput } from "./processors/types.ts";

/** A complete local file as a job's input: for scripts and benches that run a processor on a file already here. */
export function localInput(path: string, size: number): ProcessorInput {
  return {
    path,
    size,
    source: path,
    file: async () => path,
    fillAll: () => {},
    head: (bytes) => readHead(path, bytes),
  };
}

/** A local file's first `bytes` bytes (fewer when it is shorter). */
export async function readHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

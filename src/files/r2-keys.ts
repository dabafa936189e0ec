// The R2 bucket's layout (binding OUTPUTS): every key the Worker reads, writes, lists or deletes.

/** A job's output file. */
export function outputKey(jobId: string, name: string): string {
  return `${outputsPrefix(jobId)}${name}`;
}

/** Every output of a job: the prefix to list or delete them by. */
export function outputsPrefix(jobId: string): string {
  return `outputs/${jobId}/`;
}

/** A direct upload's bytes, before a job takes them as its input. */
export function uploadKey(uploadId: string): string {
  return `uploads/${uploadId}`;
}

/**
 * A resumable upload's bytes past its last full part, kept until a full part can be sent
 * (src/files/tus.ts). Keyed by the count of parts before it: a PATCH that sends parts writes
 * the next tail beside the one the row still counts, never over it.
 */
export function uploadTailKey(uploadId: string, parts: number): string {
  return `${uploadTailsPrefix(uploadId)}${parts}`;
}

/** Every tail a resumable upload has (the current one, and any a crashed PATCH left): the prefix to list or delete them by. */
export function uploadTailsPrefix(uploadId: string): string {
  return `uploads/${uploadId}.tail.`;
}

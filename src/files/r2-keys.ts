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

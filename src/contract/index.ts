export * from "./common.ts";
export * from "./create-job.ts";
export * from "./dialects.ts";
export * from "./job.ts";
export * from "./registry.ts";

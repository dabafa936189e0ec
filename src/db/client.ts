import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export type Db = ReturnType<typeof database>;

export function database(d1: D1Database) {
  return drizzle(d1, { schema });
}

// Where the docs list every job type, and what each misses: README's table, and in
// docs/job-types.md the table of types, "What the processor runs" and a section per type.
// test/contract/job-types.test.ts runs it on the repository, adding-a-job-type.test.ts on a copy.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kebabCase } from "../../src/contract/names.ts";

/** Each place: the file, the table's header row (none: a `## <type>` section), and how it names a type. */
const PLACES = [
  { file: "README.md", header: "| job type (HTTP / SDK) |", what: "row in the job type table", name: (t: string) => `\`${kebabCase(t)}\` / \`${t}\`` },
  { file: "docs/job-types.md", header: "| type (SDK / HTTP) |", what: "row in the table of types", name: (t: string) => `\`${t}\` / \`${kebabCase(t)}\`` },
  { file: "docs/job-types.md", header: "| type | tool runs, in order |", what: `row in "What the processor runs"`, name: (t: string) => `\`${t}\`` },
  { file: "docs/job-types.md", header: undefined, what: "section", name: (t: string) => `## ${t}` },
] as const;

/** The first cells of the rows of the table under `header`. */
function firstCells(markdown: string, header: string, file: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) throw new Error(`${file} has no table starting "${header}"`);
  const cells: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    cells.push(line.split("|")[1]!.trim());
  }
  return cells;
}

/** What the docs under `root` lack for `types`, and what they name that is no type: one line each, naming the file and the type. */
export function jobTypeDocProblems(root: string, types: readonly string[]): string[] {
  const problems: string[] = [];
  for (const { file, header, what, name } of PLACES) {
    const markdown = readFileSync(join(root, file), "utf8");
    const found = header ? firstCells(markdown, header, file) : [...markdown.matchAll(/^## [a-z][A-Za-z]+$/gm)].map((m) => m[0]);
    for (const type of types) if (!found.includes(name(type))) problems.push(`${file}: no ${what} for ${type} (${name(type)})`);
    const names = types.map(name);
    for (const entry of found) if (!names.includes(entry)) problems.push(`${file}: a ${what} for ${entry}, which is no job type`);
  }
  return problems;
}

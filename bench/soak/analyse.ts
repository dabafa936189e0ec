// From what the soak observed to its figures and its checks. Pure: run.ts gathers, this
// judges (figures.ts, checks.ts), report.ts writes.
import { checksOf, type Check } from "./checks.ts";
import { figuresOf, type Figures } from "./figures.ts";
import { viewsOf, type Observed } from "./observed.ts";

export { mostAtOnce } from "./figures.ts";
export type { Observed } from "./observed.ts";

export function analyse(o: Observed): { figures: Figures; checks: Check[] } {
  const views = viewsOf(o);
  const figures = figuresOf(o, views);
  return { figures, checks: checksOf(o, views, figures) };
}

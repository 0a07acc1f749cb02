import { microsecondsOf } from "../../lib/time";

/** Whether the points shown (`t`, oldest first, as the API writes them) reach the series' newest
 * start (`last_at`): then the window is the newest one, whatever `until` it was asked with. */
export function holdsNewest(t: readonly string[], lastAt: string | null | undefined): boolean {
  const shown = microsecondsOf(t[t.length - 1] ?? "");
  const newest = microsecondsOf(lastAt ?? "");
  return shown !== null && newest !== null && shown >= newest;
}

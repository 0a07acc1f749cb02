import type { Schemas } from "../../api/client";

type Part = Schemas["Part"];

const WHAT: Record<Part["name"], string> = {
  database: "The database does not answer: nothing can be read or stored",
  broker: "The broker (Redis) does not answer: background work cannot be queued",
  worker: "The background worker is not running",
  fold_backlog: "Explore is behind: runs wait for the fold into its rollups",
  check_backlog: "Regression checks are behind: series wait for their check",
};

const EFFECT: Partial<Record<Part["name"], string>> = {
  broker: "alerts, notifications, schedules and explore's rollups wait until it is back",
  worker: "alerts, notifications, schedules and explore's rollups wait until it is back",
  fold_backlog: "Explore still answers from the runs themselves, more slowly",
  check_backlog: "alerts come late",
};

export interface Problem {
  name: Part["name"];
  title: string;
  detail: string;
  since: string | null;
}

/** What the Overview's banner says: each part that is not ok, gating parts first. */
export function problemsOf(ready: Schemas["Ready"] | null | undefined): Problem[] {
  if (!ready) return [];
  return ready.parts
    .filter((p) => !p.ok)
    .map((p) => ({
      name: p.name,
      title: WHAT[p.name],
      detail: [p.detail, EFFECT[p.name]].filter(Boolean).join("; "),
      since: p.since ?? null,
    }));
}

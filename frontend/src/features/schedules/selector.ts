// An agent selector: agent names and label=value items. An agent matches when it is one of the
// names given (if any) and has every label given (the server decides; see POST /schedules/preview).
import type { Schemas } from "../../api/client";

type Agent = Pick<Schemas["AgentRead"], "name" | "labels" | "enrolled" | "revoked">;

export type SelectorItem = { kind: "name"; name: string } | { kind: "label"; key: string; value: string };

const LABEL_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** One item as typed: `lab-1` (a name) or `role=nightly` (a label); an error text when it is neither. */
export function parseSelectorItem(text: string): SelectorItem | string {
  const item = text.trim();
  if (!item) return "empty";
  const eq = item.indexOf("=");
  if (eq < 0) return item.length <= 128 ? { kind: "name", name: item } : "an agent name has at most 128 characters";
  const key = item.slice(0, eq).trim();
  const value = item.slice(eq + 1).trim();
  if (!LABEL_KEY.test(key)) return `“${key}” is not a label name (letters, digits, . _ -; starting with a letter or _)`;
  if (value.length > 256) return "a label value has at most 256 characters";
  return { kind: "label", key, value };
}

export function selectorItemText(item: SelectorItem): string {
  return item.kind === "name" ? item.name : `${item.key}=${item.value}`;
}

/** A selector in words: "lab-1 or lab-2 with role=nightly", "agents with role=nightly", "lab-1". */
export function describeSelector(items: readonly string[]): string {
  const parsed = items.map(parseSelectorItem).filter((i): i is SelectorItem => typeof i !== "string");
  const names = parsed.filter((i) => i.kind === "name").map(selectorItemText);
  const labels = parsed.filter((i) => i.kind === "label").map(selectorItemText);
  const who = names.length > 0 ? names.join(" or ") : "every enrolled agent";
  if (labels.length === 0) return who;
  return `${names.length > 0 ? who : "agents"} with ${labels.join(" and ")}`;
}

/** What to offer in the agent picker: the enrolled (unrevoked) agents' names, then each label=value they carry. */
export function selectorSuggestions(agents: readonly Agent[]): string[] {
  const live = agents.filter((a) => a.enrolled && !a.revoked);
  const names = live.map((a) => a.name).sort();
  const labels = new Set<string>();
  for (const a of live) for (const [k, v] of Object.entries(a.labels)) if (typeof v === "string") labels.add(`${k}=${v}`);
  return [...names, ...[...labels].sort()];
}

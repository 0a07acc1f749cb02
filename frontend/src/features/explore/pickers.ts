// What the pickers of every page offer from the catalog: workloads, metrics and the parameters
// and labels with their stored values, of one workload or, when none is chosen, of them all.
import { choicesOf, valueChoices, type Choice } from "../../components/ui/choices";
import { naturalSorted } from "../../lib/natural";
import type { ApiCatalog } from "./catalog";

export type Stored = { name: string; kind: "parameter" | "label"; values: string[] };
export type Pickers = {
  workloads: Choice[];
  metrics: Choice[];
  /** the agents that stored runs of the workload (of any, when none is chosen) */
  agents: Choice[];
  /** parameters, then labels, each by name */
  dimensions: Stored[];
  parameters: Choice[];
  labels: Choice[];
  /** a parameter's or label's stored values; `kind` when the name is both */
  values: (name: string, kind?: "parameter" | "label") => Choice[];
};

function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

export function pickersOf(api: ApiCatalog, workload: string): Pickers {
  const chosen = workload ? api.workloads.filter((w) => w.name === workload) : api.workloads;
  const seen = { parameter: new Map<string, unknown[]>(), label: new Map<string, unknown[]>() };
  const metrics: string[] = [];
  const agents: string[] = [];
  for (const w of chosen) {
    metrics.push(...w.metrics.map((m) => m.name));
    agents.push(...(w.agents ?? []));
    for (const [kind, table] of [
      ["parameter", w.parameters],
      ["label", w.labels],
    ] as const) {
      for (const [name, values] of Object.entries(table ?? {})) seen[kind].set(name, [...(seen[kind].get(name) ?? []), ...(values ?? [])]);
    }
  }
  const dimensions: Stored[] = [];
  for (const kind of ["parameter", "label"] as const) {
    for (const name of [...seen[kind].keys()].sort()) {
      const texts = (seen[kind].get(name) ?? []).map(text).filter((v): v is string => v !== null);
      dimensions.push({ name, kind, values: naturalSorted([...new Set(texts)]) });
    }
  }
  return {
    workloads: choicesOf(api.workloads.map((w) => w.name)),
    metrics: choicesOf(metrics),
    agents: choicesOf(agents),
    dimensions,
    parameters: choicesOf(dimensions.filter((d) => d.kind === "parameter").map((d) => d.name)),
    labels: choicesOf(dimensions.filter((d) => d.kind === "label").map((d) => d.name)),
    values: (name, kind) => {
      const bare = name.replace(/^(param|label)\./, "");
      const wanted = kind ?? (name.startsWith("label.") ? "label" : name.startsWith("param.") ? "parameter" : undefined);
      const found = dimensions.find((d) => d.name === bare && (wanted === undefined || d.kind === wanted));
      return found ? valueChoices(found.kind === "parameter" ? bare : `label.${bare}`, found.values) : [];
    },
  };
}

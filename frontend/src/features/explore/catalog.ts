// What can be plotted, from the API's catalog: workloads, the chosen workload's metrics, and the
// dimensions (time, its parameters and labels with the values seen, the built-ins).
import { naturalSorted } from "../../lib/natural";
import type { Schemas } from "../../api/client";

export type ApiCatalog = Schemas["Catalog"];
export type Metric = { name: string; unit: string };
export type Dimension = { name: string; kind: "time" | "built-in" | "parameter" | "label"; values: string[] };
export type Catalog = { workloads: string[]; metrics: Metric[]; dimensions: Dimension[] };

function strings(values: unknown[]): string[] {
  return values.filter((v) => v !== null && v !== undefined).map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v)));
}

export function buildCatalog(api: ApiCatalog, workload: string): Catalog {
  const chosen = api.workloads.find((w) => w.name === workload);
  const dimensions: Dimension[] = [{ name: "time", kind: "time", values: [] }];
  const params = chosen?.parameters ?? {};
  const labels = chosen?.labels ?? {};
  for (const name of Object.keys(params).sort()) dimensions.push({ name, kind: "parameter", values: strings(params[name] ?? []) });
  for (const name of Object.keys(labels).sort()) {
    if (!(name in params)) dimensions.push({ name, kind: "label", values: strings(labels[name] ?? []) });
  }
  for (const name of api.dimensions) {
    // the built-in agent's values: the agents that stored runs of the workload
    const values = name === "agent" ? naturalSorted(chosen?.agents ?? []) : [];
    if (name !== "time" && !(name in params) && !(name in labels)) dimensions.push({ name, kind: "built-in", values });
  }
  return {
    workloads: api.workloads.map((w) => w.name).sort(),
    metrics: (chosen?.metrics ?? []).map((m) => ({ name: m.name, unit: m.unit })).sort((a, b) => a.name.localeCompare(b.name)),
    dimensions,
  };
}

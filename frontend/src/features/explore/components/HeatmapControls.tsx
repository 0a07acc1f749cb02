import type { UseQueryResult } from "@tanstack/react-query";
import { ErrorState } from "../../../components/ui/States";
import { humanValue } from "../../../lib/units";

import type { Catalog } from "../catalog";
import type { HeatmapState } from "../url-state";
import { DimensionInput } from "./DimensionInput";
import { FilterEditor } from "./FilterEditor";
import { WorkloadMetricFields } from "./WorkloadMetricFields";

/** The heatmap's settings: what to plot over which two dimensions, filters, and a difference to show. */
export function HeatmapControls({
  state,
  catalog,
  onChange,
}: {
  state: HeatmapState;
  catalog: UseQueryResult<Catalog>;
  onChange: (patch: Partial<HeatmapState>) => void;
}) {
  const dims = (catalog.data?.dimensions ?? []).filter((d) => d.kind !== "time");
  const diffValues = dims.find((d) => d.name === state.diff)?.values ?? [];
  return (
    <aside className="controls card" aria-label="Heatmap settings">
      {catalog.isError && <ErrorState error={catalog.error} what="workloads and metrics" />}
      <WorkloadMetricFields
        catalog={catalog.data}
        workload={state.workload}
        metric={state.metric}
        onWorkload={(workload) => onChange({ workload, metric: "", filter: [] })}
        onMetric={(metric) => onChange({ metric })}
      />
      <DimensionInput label="x (columns)" value={state.x} dimensions={dims} allowEmpty="choose…" onChange={(x) => onChange({ x })} />
      <DimensionInput label="y (rows)" value={state.y} dimensions={dims} allowEmpty="choose…" onChange={(y) => onChange({ y })} />
      <FilterEditor filters={state.filter} dimensions={dims} onChange={(filter) => onChange({ filter })} />
      <fieldset className="field">
        <legend>difference between two values of</legend>
        <DimensionInput
          label="dimension"
          value={state.diff}
          dimensions={dims}
          allowEmpty="none: plot the values"
          onChange={(diff) => onChange({ diff, a: "", b: "" })}
        />
        {state.diff && (
          <div className="row">
            {(["a", "b"] as const).map((key) => (
              <label key={key} className="field">
                <span>{key === "a" ? "baseline (a)" : "against (b)"}</span>
                <select value={state[key]} onChange={(e) => onChange({ [key]: e.target.value })}>
                  <option value="">choose…</option>
                  {diffValues.map((v) => (
                    <option key={v} value={v}>
                      {humanValue(state.diff, v)}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        )}
      </fieldset>
    </aside>
  );
}

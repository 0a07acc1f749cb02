import type { UseQueryResult } from "@tanstack/react-query";
import { ErrorState } from "../../../components/ui/States";

import type { Catalog } from "../catalog";
import { BY_METRIC, metricList, withGroup, type ExploreState, type ExploreView } from "../url-state";
import { DimensionInput } from "./DimensionInput";
import { FilterEditor } from "./FilterEditor";
import { WorkloadMetricFields } from "./WorkloadMetricFields";

const VIEWS: [ExploreView, string][] = [
  ["lines", "lines"],
  ["box", "boxes"],
  ["points", "points"],
];

type Props = {
  state: ExploreState;
  catalog: UseQueryResult<Catalog>;
  /** log x only makes sense on a numeric x axis */
  xNumeric: boolean;
  onChange: (patch: Partial<ExploreState>) => void;
};

/** group=metric: which metrics to overlay, one line each (of one unit: the server says so otherwise). */
function MetricChecklist({ catalog, chosen, onChange }: { catalog: Catalog | undefined; chosen: string[]; onChange: (metrics: string[]) => void }) {
  const known = catalog?.metrics ?? [];
  const others = chosen.filter((m) => !known.some((k) => k.name === m)).map((name) => ({ name, unit: "?" }));
  return (
    <fieldset className="field metric-checklist" data-testid="metrics">
      <legend>metrics (one line each)</legend>
      {[...known, ...others].map((m) => (
        <label key={m.name} className="check">
          <input
            type="checkbox"
            value={m.name}
            checked={chosen.includes(m.name)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, m.name] : chosen.filter((c) => c !== m.name))}
          />{" "}
          {m.name} ({m.unit})
        </label>
      ))}
    </fieldset>
  );
}

/** Explore's settings: what to plot, against what, one line per what, filters and the view. */
export function ExploreControls({ state, catalog, xNumeric, onChange }: Props) {
  const dims = catalog.data?.dimensions ?? [];
  return (
    <aside className="controls card" aria-label="Plot settings">
      {catalog.isError && <ErrorState error={catalog.error} what="workloads and metrics" />}
      <WorkloadMetricFields
        catalog={catalog.data}
        workload={state.workload}
        metric={state.metric}
        onWorkload={(workload) => onChange({ workload, metric: "", group: "", filter: [] })}
        onMetric={(metric) => onChange({ metric })}
        testIds
        hideMetric={state.group === BY_METRIC}
      />
      {state.group === BY_METRIC && (
        <MetricChecklist catalog={catalog.data} chosen={metricList(state.metric)} onChange={(metrics) => onChange({ metric: metrics.join(",") })} />
      )}
      <DimensionInput label="x axis" testId="x" value={state.x} dimensions={dims} onChange={(x) => onChange({ x })} />
      <DimensionInput
        label="one line per"
        testId="group"
        value={state.group}
        dimensions={[...dims.filter((d) => d.kind !== "time"), { name: BY_METRIC, kind: "built-in", values: [] }]}
        allowEmpty="nothing (one line)"
        onChange={(group) => onChange(withGroup(state, group))}
      />
      <FilterEditor filters={state.filter} dimensions={dims} onChange={(filter) => onChange({ filter })} />
      <fieldset className="field">
        <legend>show</legend>
        <div className="segmented" role="radiogroup" aria-label="show">
          {VIEWS.map(([v, text]) => (
            <label key={v} className={state.view === v ? "on" : undefined}>
              <input type="radio" name="view" value={v} checked={state.view === v} onChange={() => onChange({ view: v })} />
              {text}
            </label>
          ))}
        </div>
        <label className="check">
          <input type="checkbox" checked={state.logx} disabled={!xNumeric} onChange={(e) => onChange({ logx: e.target.checked })} /> log x
        </label>
        <label className="check">
          <input type="checkbox" checked={state.logy} onChange={(e) => onChange({ logy: e.target.checked })} /> log y
        </label>
      </fieldset>
    </aside>
  );
}

import { FilterInput } from "../../../components/ui/FilterInput";
import { ValueFilterAdd } from "../../../components/ui/ValueFilterAdd";
import { humanTyped } from "../../../lib/units";
import { useAgentChoices } from "../../agents";
import { usePickers } from "../../explore";
import { filterKind } from "../filters";

export type RunsFilterState = { workload: string; agent: string; status: string; label: string[]; param: string[] };

/** The runs list's filters: workload, agent and status, and parameters' and labels' values; each
 * offers what is stored (the workload's parameters and labels, or every workload's). */
export function RunsFilters({
  state,
  onChange,
  onClear,
}: {
  state: RunsFilterState;
  onChange: (patch: Partial<RunsFilterState>) => void;
  onClear: () => void;
}) {
  const pickers = usePickers(state.workload).data;
  // the workload's agents once one is chosen, else every enrolled agent
  const everyAgent = useAgentChoices().data ?? [];
  const agents = state.workload ? (pickers?.agents ?? []) : everyAgent;
  const parameters = (pickers?.dimensions ?? []).filter((d) => d.kind === "parameter").map((d) => d.name);
  const dimensions = (pickers?.dimensions ?? []).map((d) => ({
    value: d.kind === "label" && parameters.includes(d.name) ? `label.${d.name}` : d.name,
    label: d.kind,
  }));
  const filtered = Boolean(state.workload || state.agent || state.status || state.label.length > 0 || state.param.length > 0);
  const add = (dim: string, value: string) => {
    const [kind, name] = filterKind(dim, parameters);
    const pair = `${name}:${value}`;
    if (!state[kind].includes(pair)) onChange({ [kind]: [...state[kind], pair] });
  };
  return (
    <form className="toolbar" onSubmit={(e) => e.preventDefault()}>
      <FilterInput label="workload" value={state.workload} onApply={(workload) => onChange({ workload })} choices={pickers?.workloads} testId="runs-workload" />
      <FilterInput label="agent" value={state.agent} onApply={(agent) => onChange({ agent })} choices={agents} testId="runs-agent" />
      <label className="field inline">
        <span>status</span>
        <select value={state.status} onChange={(e) => onChange({ status: e.target.value })}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="failed">failed</option>
          <option value="partial">partial</option>
        </select>
      </label>
      <div className="field inline" data-testid="runs-value-filter">
        <span>value</span>
        <ValueFilterAdd
          dimensions={dimensions}
          valuesOf={(dim) => {
            const [kind, name] = filterKind(dim, parameters);
            return pickers?.values(name, kind === "param" ? "parameter" : "label") ?? [];
          }}
          onAdd={add}
          testId="runs-filter"
          placeholder="parameter or label"
        />
      </div>
      {(["param", "label"] as const).map((kind) =>
        state[kind].map((pair) => {
          const [name, ...rest] = pair.split(":");
          const value = rest.join(":");
          return (
            <span key={`${kind}-${pair}`} className="chip" data-testid={`${kind}-filter`}>
              {kind === "param" ? `${name} = ${humanTyped(name, value)}` : `label ${pair}`}
              <button type="button" aria-label={`remove ${kind} ${pair}`} onClick={() => onChange({ [kind]: state[kind].filter((x) => x !== pair) })}>
                ×
              </button>
            </span>
          );
        }),
      )}
      {filtered && (
        <button type="button" className="button small" onClick={onClear}>
          Clear filters
        </button>
      )}
    </form>
  );
}

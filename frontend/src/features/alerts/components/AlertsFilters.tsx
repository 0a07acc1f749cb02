import { useChoiceList } from "../../../components/ui/ChoiceList";
import { useAgentChoices } from "../../agents";
import { usePickers } from "../../explore";
import type { AlertStatus } from "../api/get-alerts";
import { STATUS_LABEL, STATUSES, type AlertsState } from "../format";

/** One tab per status, with how many alerts each holds (… while loading). */
export function AlertStatusTabs({
  status,
  counts,
  onSelect,
}: {
  status: AlertStatus;
  counts: Record<string, number> | undefined;
  onSelect: (status: AlertStatus) => void;
}) {
  return (
    <div className="tabs" role="tablist" aria-label="Alert status">
      {STATUSES.map((s) => (
        <button
          key={s}
          type="button"
          role="tab"
          aria-selected={status === s}
          className={status === s ? "tab active" : "tab"}
          data-testid={`tab-${s}`}
          onClick={() => onSelect(s)}
        >
          {STATUS_LABEL[s]} <span className="count">{counts ? (counts[s] ?? 0) : "…"}</span>
        </button>
      ))}
    </div>
  );
}

export function isFiltered(state: AlertsState): boolean {
  return Boolean(state.workload || state.agent || state.label.length > 0);
}

/** Workload, host and label filters; a label is added on Apply and removed by its chip's ×. */
export function AlertsFilters({ state, onChange }: { state: AlertsState; onChange: (patch: Partial<AlertsState>) => void }) {
  const pickers = usePickers(state.workload).data;
  const [workloads, workloadList] = useChoiceList(pickers?.workloads ?? [], "alerts-workload-choices");
  const everyAgent = useAgentChoices().data ?? [];
  const [agents, agentList] = useChoiceList((state.workload ? pickers?.agents : everyAgent) ?? [], "alerts-agent-choices");
  // every label's stored values as name:value, what the filter takes
  const pairs = (pickers?.dimensions ?? []).filter((d) => d.kind === "label").flatMap((d) => d.values.map((v) => ({ value: `${d.name}:${v}` })));
  const [labels, labelList] = useChoiceList(pairs, "alerts-label-choices");
  return (
    <form
      className="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const label = String(form.get("label") ?? "").trim();
        onChange({
          workload: String(form.get("workload") ?? "").trim(),
          agent: String(form.get("agent") ?? "").trim(),
          label: label && label.includes(":") && !state.label.includes(label) ? [...state.label, label] : state.label,
        });
        const input = e.currentTarget.elements.namedItem("label");
        if (input instanceof HTMLInputElement) input.value = "";
      }}
    >
      <label className="field inline">
        <span>workload</span>
        <input name="workload" key={`w-${state.workload}`} defaultValue={state.workload} list={workloads} />
        {workloadList}
      </label>
      <label className="field inline">
        <span>host</span>
        <input name="agent" key={`a-${state.agent}`} defaultValue={state.agent} placeholder="agent" list={agents} />
        {agentList}
      </label>
      <label className="field inline">
        <span>label</span>
        <input name="label" placeholder="name:value" pattern="[^:]+:.*" title="name:value, e.g. fs_version:6.2" list={labels} />
        {labelList}
      </label>
      <button type="submit" className="button small">
        Apply
      </button>
      {state.label.map((l) => (
        <span key={l} className="chip">
          label {l}
          <button type="button" aria-label={`remove label ${l}`} onClick={() => onChange({ label: state.label.filter((x) => x !== l) })}>
            ×
          </button>
        </span>
      ))}
      {isFiltered(state) && (
        <button type="button" className="button small" onClick={() => onChange({ workload: "", agent: "", label: [] })}>
          Clear filters
        </button>
      )}
    </form>
  );
}

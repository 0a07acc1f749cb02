import { FilterInput } from "../../../components/ui/FilterInput";
import { useAgentChoices } from "../../agents";
import { JOB_STATUSES } from "../progress";
import type { JobsState } from "../url-state";

/** Status, agent and schedule filters, kept in the URL. */
export function JobsFilters({ state, onChange }: { state: JobsState; onChange: (patch: Partial<JobsState>) => void }) {
  const agents = useAgentChoices().data;
  const filtered = Boolean(state.status || state.agent || state.schedule);
  return (
    <div className="toolbar">
      <label className="field inline">
        <span>status</span>
        <select value={state.status} onChange={(e) => onChange({ status: e.target.value as JobsState["status"] })} data-testid="jobs-status">
          <option value="">any</option>
          {JOB_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <FilterInput
        label="agent"
        value={state.agent}
        placeholder="made for or run by"
        onApply={(agent) => onChange({ agent })}
        choices={agents}
        testId="jobs-agent"
      />
      <FilterInput
        label="schedule"
        value={state.schedule}
        placeholder="schedule id"
        onApply={(schedule) => onChange({ schedule: /^\d+$/.test(schedule) ? schedule : "" })}
      />
      {filtered && (
        <button type="button" className="button small" onClick={() => onChange({ status: "", agent: "", schedule: "" })}>
          Clear filters
        </button>
      )}
    </div>
  );
}

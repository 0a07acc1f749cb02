import type { UseQueryResult } from "@tanstack/react-query";
import { ApiError } from "../../../api/client";
import { ErrorState } from "../../../components/ui/States";
import { plural } from "../../../lib/format";
import { formatInZone, userTimeZone } from "../../../lib/time";
import type { SchedulePreview } from "../api/preview-schedule";

/** What the schedule would do, from POST /schedules/preview: runs per agent × agents, the agents
 * it picks, its next five firings in the user's zone (and the schedule's, when they differ). */
export function PreviewPanel({
  preview,
  missing,
  fresh,
  timezone,
}: {
  preview: UseQueryResult<SchedulePreview>;
  missing: string[];
  fresh: boolean;
  timezone: string;
}) {
  const zone = userTimeZone();
  if (missing.length > 0) {
    return <p className="muted">The preview needs {missing.join(", ")}.</p>;
  }
  if (preview.isError) {
    if (preview.error instanceof ApiError && preview.error.status === 422) {
      return <p className="error-text">The preview shows once the fields marked in red are fixed.</p>;
    }
    return <ErrorState error={preview.error} what="the preview" />;
  }
  const data = preview.data;
  if (!data) return <p className="muted">Previewing…</p>;
  const agents = data.matching_agents.length;
  return (
    <div className={fresh ? undefined : "refreshing"} data-testid="schedule-preview">
      <p className="preview-count" data-testid="preview-count">
        {plural(data.runs_per_agent, "run")} per agent × {plural(agents, "agent")} = <strong>{plural(data.runs_total, "run")}</strong>
        {data.next_firings.length > 1 ? " at each firing" : ""}
      </p>
      {agents === 0 ? (
        <p className="error-text" data-testid="preview-agents">
          No enrolled agent matches this selector now: a firing would make no job. It is allowed (an agent enrolled later is picked).
        </p>
      ) : (
        <p data-testid="preview-agents">
          Agents: <span className="mono">{data.matching_agents.join(", ")}</span>
        </p>
      )}
      <h3>Next firings</h3>
      {data.next_firings.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <table className="table firings-list" data-testid="preview-firings">
          <thead>
            <tr>
              <th>your time ({zone})</th>
              {timezone && timezone !== zone && <th>{timezone}</th>}
            </tr>
          </thead>
          <tbody>
            {data.next_firings.map((t) => (
              <tr key={t}>
                <td>{formatInZone(t, zone)}</td>
                {timezone && timezone !== zone && <td className="muted">{formatInZone(t, timezone)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

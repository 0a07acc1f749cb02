import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { Empty, QueryView } from "../../../components/ui/States";
import { formatTime, timeAgo } from "../../../lib/format";
import type { Incident, IncidentPage } from "../api/get-incidents";
import { causeSummary, STATUS_LABEL, STATUSES } from "../format";
import { NoAlertsHelp } from "./NoAlertsHelp";
import { paths } from "../../../lib/paths";

export type IncidentTab = "open" | "resolved" | "all";

export function IncidentStatusTabs({ status, onSelect }: { status: IncidentTab; onSelect: (status: IncidentTab) => void }) {
  return (
    <div className="tabs" role="tablist" aria-label="Incident status">
      {(["open", "resolved", "all"] as const).map((s) => (
        <button key={s} type="button" role="tab" aria-selected={status === s} className={status === s ? "tab active" : "tab"} onClick={() => onSelect(s)}>
          {s === "all" ? "All" : s === "open" ? "Open" : "Resolved"}
        </button>
      ))}
    </div>
  );
}

function IncidentsTable({ incidents }: { incidents: Incident[] }) {
  return (
    <table className="table" data-testid="incidents-table">
      <thead>
        <tr>
          <th>incident</th>
          <th>host</th>
          <th>cause</th>
          <th>alerts</th>
          <th>opened</th>
          <th>status</th>
        </tr>
      </thead>
      <tbody>
        {incidents.map((i) => (
          <tr key={i.id}>
            <td>
              <Link to={paths.incident(i.id)} className="strong">
                #{i.id} {i.title}
              </Link>
            </td>
            <td>
              {i.agent ?? (
                <span className="muted" title="the incident is not tied to one host">
                  –
                </span>
              )}
            </td>
            <td className="small">{causeSummary(i.cause, 3) || <span className="muted">unknown</span>}</td>
            <td className="small">
              {STATUSES.filter((s) => (i.alert_counts[s] ?? 0) > 0)
                .map((s) => `${i.alert_counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
                .join(", ")}
            </td>
            <td className="nowrap" title={formatTime(i.opened_at)}>
              {timeAgo(i.opened_at)}
            </td>
            <td>
              <span className={`badge status-${i.status}`}>{i.status}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One page of incidents with a link to the next, or why there are none. */
export function IncidentsList({
  incidents,
  status,
  onCursor,
}: {
  incidents: UseQueryResult<IncidentPage>;
  status: IncidentTab;
  onCursor: (cursor: string) => void;
}) {
  return (
    <QueryView query={incidents} what="incidents">
      {(page) =>
        page.items.length === 0 ? (
          <Empty title={status === "open" ? "No open incidents." : "No incidents."}>
            {status === "open" ? (
              <p className="state-body">
                An incident opens when an alert does; alerts with the same cause on the same host join it. See{" "}
                <Link to={paths.incidents({ status: "all" })}>every incident</Link> or <Link to={paths.alerts()}>the alerts</Link>.
              </p>
            ) : (
              <NoAlertsHelp />
            )}
          </Empty>
        ) : (
          <>
            <IncidentsTable incidents={page.items} />
            {page.next_cursor && (
              <div className="pager">
                <button type="button" className="button small" onClick={() => onCursor(page.next_cursor ?? "")}>
                  Older →
                </button>
              </div>
            )}
          </>
        )
      }
    </QueryView>
  );
}

import type { UseQueryResult } from "@tanstack/react-query";
import { Empty, QueryView } from "../../../components/ui/States";
import type { AlertPage } from "../api/get-alerts";
import { STATUS_LABEL, STATUSES, type AlertsState } from "../format";
import { isFiltered } from "./AlertsFilters";
import { AlertsTable } from "./AlertsTable";
import { NoAlertsHelp } from "./NoAlertsHelp";

/** One page of alerts with its pager, or why there are none: none at all, none matching, or none in this tab. */
export function AlertsList({ alerts, state, onCursor }: { alerts: UseQueryResult<AlertPage>; state: AlertsState; onCursor: (cursor: string) => void }) {
  const filtered = isFiltered(state);
  return (
    <QueryView query={alerts} what="alerts">
      {(page) =>
        page.items.length === 0 ? (
          Object.values(page.counts).every((n) => n === 0) ? (
            <Empty title={filtered ? "No alert matches these filters." : "No alerts yet."}>{!filtered && <NoAlertsHelp />}</Empty>
          ) : (
            <Empty title={`No ${STATUS_LABEL[state.status].toLowerCase()} alerts${filtered ? " match these filters" : ""}.`}>
              <p className="state-body">
                {state.status === "open" ? "Nothing needs triage. " : ""}The other tabs hold{" "}
                {STATUSES.filter((s) => s !== state.status && (page.counts[s] ?? 0) > 0)
                  .map((s) => `${page.counts[s]} ${STATUS_LABEL[s].toLowerCase()}`)
                  .join(", ")}
                .
              </p>
            </Empty>
          )
        ) : (
          <>
            <AlertsTable alerts={page.items} />
            <div className="pager">
              {state.cursor && (
                <button type="button" className="button small" onClick={() => onCursor("")}>
                  ← Newest
                </button>
              )}
              {page.next_cursor && (
                <button type="button" className="button small" onClick={() => onCursor(page.next_cursor ?? "")}>
                  Older →
                </button>
              )}
            </div>
          </>
        )
      }
    </QueryView>
  );
}

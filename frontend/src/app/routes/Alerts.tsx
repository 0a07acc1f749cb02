import { Link, useSearchParams } from "react-router-dom";
import { useAlerts } from "../../features/alerts/api/get-alerts";
import { AlertsFilters, AlertStatusTabs } from "../../features/alerts/components/AlertsFilters";
import { AlertsList } from "../../features/alerts/components/AlertsList";
import { alertsFilter, alertsSearch, parseAlertsState, type AlertsState } from "../../features/alerts/format";
import { searchNow } from "../../lib/search-now";
import { paths } from "../../lib/paths";

export function Alerts() {
  const [params, setParams] = useSearchParams();
  const state = parseAlertsState(params);
  const alerts = useAlerts(alertsFilter(state));
  // Any change but paging starts again at the newest alerts.
  const go = (next: Partial<AlertsState>) => setParams(alertsSearch({ ...parseAlertsState(searchNow()), cursor: "", ...next }));

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p className="muted">Lasting changes the detector found in a series. Open one to see the change, its likely cause and to triage it.</p>
        </div>
        <div className="actions">
          <Link className="button" to={paths.incidents()}>
            Incidents
          </Link>
          <Link className="button" to={paths.settings({ tab: "rules" })}>
            Alert rules
          </Link>
        </div>
      </div>
      <AlertStatusTabs status={state.status} counts={alerts.data?.counts} onSelect={(status) => go({ status })} />
      <AlertsFilters state={state} onChange={go} />
      <section className="card">
        <AlertsList alerts={alerts} state={state} onCursor={(cursor) => go({ cursor })} />
      </section>
    </div>
  );
}

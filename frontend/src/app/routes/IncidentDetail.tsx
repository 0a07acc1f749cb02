import { Link, useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useIncident } from "../../features/alerts/api/get-incidents";
import { AlertsTable } from "../../features/alerts/components/AlertsTable";
import { CauseTable } from "../../features/alerts/components/CauseTable";
import { IncidentHeader, IncidentTriage } from "../../features/alerts/components/IncidentParts";
import { paths } from "../../lib/paths";

export function IncidentDetail() {
  const { id = "" } = useParams();
  const incident = useIncident(Number(id));
  return (
    <div className="page">
      <p className="crumbs">
        <Link to={paths.incidents()}>← Incidents</Link>
      </p>
      <QueryView query={incident} what={`incident ${id}`}>
        {(i) => (
          <>
            <IncidentHeader incident={i} />
            <div className="grid-2">
              <section className="card">
                <h2>What changed</h2>
                <CauseTable cause={i.cause} />
              </section>
              <IncidentTriage incident={i} />
            </div>
            <section className="card">
              <h2>Alerts</h2>
              <AlertsTable alerts={i.alerts} showStatus showIncident={false} />
            </section>
          </>
        )}
      </QueryView>
    </div>
  );
}

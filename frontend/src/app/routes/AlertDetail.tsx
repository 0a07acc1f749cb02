import { Link, useParams } from "react-router-dom";
import { QueryView } from "../../components/ui/States";
import { useAlert } from "../../features/alerts/api/get-alert";
import { AlertChart } from "../../features/alerts/components/AlertChart";
import { AlertHeader } from "../../features/alerts/components/AlertHeader";
import { AlertRuns } from "../../features/alerts/components/AlertRuns";
import { AlertStatusCard } from "../../features/alerts/components/AlertStatus";
import { CauseTable } from "../../features/alerts/components/CauseTable";
import { ConfirmationPanel } from "../../features/alerts/components/ConfirmationPanel";
import { DifferencesTable } from "../../features/alerts/components/DifferencesTable";
import { paths } from "../../lib/paths";

export function AlertDetail() {
  const { id = "" } = useParams();
  const alert = useAlert(Number(id));
  return (
    <div className="page">
      <p className="crumbs">
        <Link to={paths.alerts()}>← Alerts</Link>
      </p>
      <QueryView query={alert} what={`alert ${id}`}>
        {(a) => (
          <>
            <AlertHeader alert={a} />
            <div className="grid-2">
              <AlertChart alert={a} />
              <div className="stack">
                <AlertStatusCard alert={a} />
                <AlertRuns alert={a} />
              </div>
            </div>
            <ConfirmationPanel alert={a} />
            <div className="grid-2 even">
              <section className="card">
                <h2>What differs between the two runs</h2>
                <DifferencesTable alert={a} />
              </section>
              <section className="card">
                <h2>Likely cause</h2>
                <p className="muted small">What changed with the step, from the environments and labels of the runs around it.</p>
                <CauseTable cause={a.cause} />
              </section>
            </div>
          </>
        )}
      </QueryView>
    </div>
  );
}

import { Link } from "react-router-dom";
import type { Run } from "../api/get-run";
import { paths } from "../../../lib/paths";

export function RunHeader({ run }: { run: Run }) {
  return (
    <div className="page-head">
      <div>
        <h1>
          {run.workload} <span className="muted">on {run.agent}</span>
        </h1>
        <p className="muted mono" data-testid="run-uuid">
          {run.uuid}
        </p>
      </div>
      <div className="actions">
        <Link className="button" to={paths.runs({ workload: run.workload, agent: run.agent })}>
          Similar runs
        </Link>
        <Link className="button" to={paths.compare({ pick: run.uuid })}>
          Compare with…
        </Link>
      </div>
    </div>
  );
}

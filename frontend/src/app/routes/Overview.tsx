import { Link } from "react-router-dom";
import { ApiError } from "../../api/client";
import { ErrorState } from "../../components/ui/States";
import { AgentsPanel } from "../../features/agents/components/AgentsPanel";
import { OpenAlertsPanel } from "../../features/alerts/components/OpenAlertsPanel";
import { FirstRunCard } from "../../features/firstrun";
import { WorkloadLinks } from "../../features/explore/components/WorkloadLinks";
import { ReadyBanner } from "../../features/health";
import { useRuns } from "../../features/runs/api/get-runs";
import { RecentRuns } from "../../features/runs/components/RecentRuns";
import { paths } from "../../lib/paths";

export function Overview() {
  const runs = useRuns({ limit: 15 });
  return (
    <div className="page">
      <div className="page-head">
        <h1>Overview</h1>
        <div className="actions">
          <Link className="button primary" to={paths.explore()}>
            Explore results
          </Link>
          <Link className="button" to={paths.compare()}>
            Compare runs
          </Link>
        </div>
      </div>
      <ReadyBanner />
      <FirstRunCard />
      <WorkloadLinks />
      {/* Without a token on a server that needs one, one message says so instead of three. */}
      {runs.error instanceof ApiError && runs.error.needsToken ? (
        <ErrorState error={runs.error} what="this PerfAtlas server" />
      ) : (
        <div className="grid-2">
          <RecentRuns runs={runs} />
          <div className="stack">
            <OpenAlertsPanel />
            <AgentsPanel />
          </div>
        </div>
      )}
    </div>
  );
}

import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { AgentHelp } from "../../../components/ui/AgentHelp";
import { Empty, QueryView } from "../../../components/ui/States";
import type { RunPage } from "../api/get-runs";
import { RunsTable } from "./RunsTable";
import { paths } from "../../../lib/paths";

/** The newest runs, for the Overview; how to upload one when there is none. */
export function RecentRuns({ runs }: { runs: UseQueryResult<RunPage> }) {
  return (
    <section className="card">
      <div className="card-head">
        <h2>Recent runs</h2>
        <Link to={paths.runs()}>all runs →</Link>
      </div>
      <QueryView query={runs} what="recent runs">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No runs yet.">
              <AgentHelp />
            </Empty>
          ) : (
            <RunsTable runs={page.items} compact />
          )
        }
      </QueryView>
    </section>
  );
}

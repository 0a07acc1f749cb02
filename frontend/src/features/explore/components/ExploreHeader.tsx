import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { apiUrl } from "../../../api/client";
import { CsvButton, CsvError, useCsvDownload } from "../../../components/ui/CsvDownload";
import type { ExploreQuery } from "../api/get-explore";
import { heatmapFromExplore, heatmapSearch, type ExploreState } from "../url-state";
import { paths } from "../../../lib/paths";

/** The page's title, its CSV download and the way to the heatmap of the same data (once there is a query). */
export function ExploreHeader({ state, query, actions }: { state: ExploreState; query: ExploreQuery | null; actions?: ReactNode }) {
  const csv = useCsvDownload();
  return (
    <>
      <div className="page-head">
        <h1>Explore</h1>
        <div className="actions">
          {query && (
            <>
              <CsvButton onClick={() => csv.download(apiUrl("/explore.csv", { query }), `${state.workload}-${state.metric}-by-${state.x}.csv`)} />
              <Link className="button" to={paths.heatmap(heatmapSearch(heatmapFromExplore(state)))}>
                Heatmap
              </Link>
              {actions}
            </>
          )}
        </div>
      </div>
      <CsvError error={csv.error} />
    </>
  );
}

import { useCallback, useEffect, useMemo } from "react";
import { useSearchParams } from "react-router-dom";
import { loadPlotly } from "../../components/charts/Plot";
import { useCatalog } from "../../features/explore/api/get-catalog";
import { useExplore } from "../../features/explore/api/get-explore";
import { ExploreChart } from "../../features/explore/components/ExploreChart";
import { ExploreControls } from "../../features/explore/components/ExploreControls";
import { ExploreHeader } from "../../features/explore/components/ExploreHeader";
import { ExploreTable } from "../../features/explore/components/ExploreTable";
import { AddToReport, exploreBlock } from "../../features/reports";
import { exploreQuery, exploreSearch, parseExploreState, type ExploreState } from "../../features/explore/url-state";
import { searchNow } from "../../lib/search-now";

export function Explore() {
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => parseExploreState(params), [params]);
  const query = useMemo(() => exploreQuery(state), [state]);
  const explore = useExplore(query);
  // The catalog only fills the pickers: a plot opened from a link asks for its data first.
  const catalog = useCatalog(state.workload, !query || !explore.isPending);
  useEffect(() => void loadPlotly().catch(() => {}), []);
  const update = useCallback(
    (patch: Partial<ExploreState>) => setParams(exploreSearch({ ...parseExploreState(searchNow()), ...patch }), { replace: false }),
    [setParams],
  );

  return (
    <div className="page explore">
      <ExploreHeader state={state} query={query} actions={<AddToReport block={exploreBlock(state)} />} />
      <div className="explore-layout">
        <ExploreControls state={state} catalog={catalog} xNumeric={Boolean(explore.data?.x_numeric)} onChange={update} />
        <ExploreChart state={state} query={query} explore={explore} catalog={catalog.data} />
      </div>
      {explore.data && <ExploreTable data={explore.data} />}
    </div>
  );
}

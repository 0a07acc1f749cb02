import { useEffect, useMemo } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { loadPlotly } from "../../components/charts/Plot";
import { useCatalog } from "../../features/explore/api/get-catalog";
import { useHeatmap } from "../../features/explore/api/get-heatmap";
import { HeatmapChart } from "../../features/explore/components/HeatmapChart";
import { HeatmapControls } from "../../features/explore/components/HeatmapControls";
import { AddToReport, heatmapBlock } from "../../features/reports";
import { exploreLink, heatmapSearch, parseHeatmapState, type HeatmapState } from "../../features/explore/url-state";
import { searchNow } from "../../lib/search-now";

export function Heatmap() {
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => parseHeatmapState(params), [params]);
  const catalog = useCatalog(state.workload);
  const heatmap = useHeatmap(state);
  useEffect(() => void loadPlotly().catch(() => {}), []);
  const update = (patch: Partial<HeatmapState>) => setParams(heatmapSearch({ ...parseHeatmapState(searchNow()), ...patch }));

  return (
    <div className="page">
      <div className="page-head">
        <h1>Heatmap</h1>
        <div className="actions">
          {state.workload && state.metric && (
            <Link
              className="button"
              to={exploreLink({ workload: state.workload, metric: state.metric, x: state.x || "time", group: state.y, filter: state.filter })}
            >
              Back to Explore
            </Link>
          )}
          {state.workload && state.metric && state.x && state.y && <AddToReport block={heatmapBlock(state)} />}
        </div>
      </div>
      <div className="explore-layout">
        <HeatmapControls state={state} catalog={catalog} onChange={update} />
        <HeatmapChart state={state} heatmap={heatmap} />
      </div>
    </div>
  );
}

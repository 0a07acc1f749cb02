import { useQueries } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { Plot, loadPlotly } from "../../components/charts/Plot";
import { Empty, ErrorState, Loading } from "../../components/ui/States";
import { useCatalog } from "../../features/explore/api/get-catalog";
import { exploreQueryOptions } from "../../features/explore/api/get-explore";
import { DimensionInput } from "../../features/explore/components/DimensionInput";
import { FilterEditor } from "../../features/explore/components/FilterEditor";
import { diffGrid, heatmapFigure, toGrid } from "../../features/explore/figures";
import { exploreSearch, heatmapQueries, heatmapSearch, parseExploreState, parseHeatmapState, type HeatmapState } from "../../features/explore/url-state";
import { useTheme } from "../../lib/use-theme";

export function Heatmap() {
  const [params, setParams] = useSearchParams();
  const { theme } = useTheme();
  const state = useMemo(() => parseHeatmapState(params), [params]);
  const catalog = useCatalog(state.workload);
  useEffect(() => void loadPlotly().catch(() => {}), []);
  const queries = useMemo(() => heatmapQueries(state), [state]);
  const results = useQueries({
    queries: queries.map((q) => exploreQueryOptions(q)),
    combine: (rs) => ({ data: rs.map((r) => r.data), error: rs.find((r) => r.isError)?.error }),
  });
  const update = (patch: Partial<HeatmapState>) => setParams(heatmapSearch({ ...state, ...patch }));

  const cat = catalog.data;
  const dims = (cat?.dimensions ?? []).filter((d) => d.kind !== "time");
  const diffValues = dims.find((d) => d.name === state.diff)?.values ?? [];
  const isDiff = queries.length === 2;
  const error = results.error;
  const datas = results.data;
  const ready = datas.length > 0 && datas.every((d) => d !== undefined);

  const figure = useMemo(() => {
    const loaded = datas.filter((d) => d !== undefined);
    if (loaded.length === 0 || loaded.length !== datas.length) return null;
    const grids = loaded.map((d) => toGrid(d));
    const grid = isDiff ? diffGrid(grids[0]!, grids[1]!) : grids[0]!;
    if (grid.xs.length === 0 || grid.ys.length === 0) return null;
    const first = loaded[0]!;
    return heatmapFigure(grid, {
      theme,
      x: state.x,
      y: state.y,
      diff: isDiff,
      direction: first.direction,
      reasons: first.flag_reasons,
      title: isDiff ? `${state.b} vs ${state.a} (%), blue = better` : `median ${first.unit ?? ""}`,
    });
  }, [datas, isDiff, theme, state.x, state.y, state.a, state.b]);

  const exploreLink = `/explore?${exploreSearch({ ...parseExploreState(new URLSearchParams()), workload: state.workload, metric: state.metric, x: state.x || "time", group: state.y, filter: state.filter })}`;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Heatmap</h1>
        <div className="actions">
          {state.workload && state.metric && (
            <Link className="button" to={exploreLink}>
              Back to Explore
            </Link>
          )}
        </div>
      </div>
      <div className="explore-layout">
        <aside className="controls card" aria-label="Heatmap settings">
          {catalog.isError && <ErrorState error={catalog.error} what="workloads and metrics" />}
          <label className="field">
            <span>workload</span>
            <select value={state.workload} onChange={(e) => update({ workload: e.target.value, metric: "", filter: [] })}>
              <option value="">choose…</option>
              {(cat?.workloads ?? []).map((w) => (
                <option key={w}>{w}</option>
              ))}
              {state.workload && !cat?.workloads.includes(state.workload) && <option>{state.workload}</option>}
            </select>
          </label>
          <label className="field">
            <span>metric</span>
            <select value={state.metric} disabled={!state.workload} onChange={(e) => update({ metric: e.target.value })}>
              <option value="">choose…</option>
              {(cat?.metrics ?? []).map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name} ({m.unit})
                </option>
              ))}
              {state.metric && !cat?.metrics.some((m) => m.name === state.metric) && <option>{state.metric}</option>}
            </select>
          </label>
          <DimensionInput label="x (columns)" value={state.x} dimensions={dims} allowEmpty="choose…" onChange={(x) => update({ x })} />
          <DimensionInput label="y (rows)" value={state.y} dimensions={dims} allowEmpty="choose…" onChange={(y) => update({ y })} />
          <FilterEditor filters={state.filter} dimensions={dims} onChange={(filter) => update({ filter })} />
          <fieldset className="field">
            <legend>difference between two values of</legend>
            <DimensionInput label="dimension" value={state.diff} dimensions={dims} allowEmpty="none: plot the values" onChange={(diff) => update({ diff, a: "", b: "" })} />
            {state.diff && (
              <div className="row">
                {(["a", "b"] as const).map((key) => (
                  <label key={key} className="field">
                    <span>{key === "a" ? "baseline (a)" : "against (b)"}</span>
                    <select value={state[key]} onChange={(e) => update({ [key]: e.target.value })}>
                      <option value="">choose…</option>
                      {diffValues.map((v) => (
                        <option key={v}>{v}</option>
                      ))}
                    </select>
                  </label>
                ))}
              </div>
            )}
          </fieldset>
        </aside>
        <section className="card plot-card">
          {queries.length === 0 ? (
            <Empty title="Choose a workload, a metric and two dimensions (for example segsize × k).">
              <p>Each cell is the median of the runs with that pair of values; ⚠ marks a cell whose numbers need care (hover for why). Pick a dimension and two of its values (two versions, say) to see their difference, coloured around zero: blue is better, red worse.</p>
            </Empty>
          ) : error ? (
            <ErrorState error={error} what="the heatmap" />
          ) : !ready ? (
            <Loading what="the heatmap" />
          ) : !figure ? (
            <Empty title="No results match: remove a filter, or check that both dimensions are set on these runs." />
          ) : (
            <>
              {state.diff && !isDiff && <p className="muted">Choose a baseline and a value to compare to see the difference.</p>}
              <Plot figure={figure} label={`${state.metric} over ${state.x} and ${state.y}`} height={520} />
            </>
          )}
        </section>
      </div>
    </div>
  );
}

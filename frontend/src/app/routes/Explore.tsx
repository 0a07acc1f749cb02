import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { downloadCsv } from "../../api/client";
import { Plot, loadPlotly, type PointClick } from "../../components/charts/Plot";
import { Empty, ErrorState, Loading } from "../../components/ui/States";
import { AgentHelp } from "../../components/ui/AgentHelp";
import { useCatalog } from "../../features/explore/api/get-catalog";
import { useExplore, type Explore as ExploreData } from "../../features/explore/api/get-explore";
import { DimensionInput } from "../../features/explore/components/DimensionInput";
import { FilterEditor } from "../../features/explore/components/FilterEditor";
import { exploreFigure, groupName } from "../../features/explore/figures";
import {
  exploreQuery,
  exploreSearch,
  heatmapFromExplore,
  heatmapSearch,
  parseExploreState,
  type ExploreState,
  type ExploreView,
} from "../../features/explore/url-state";
import { formatNumber, plural, shortId } from "../../lib/format";
import { useTheme } from "../../lib/use-theme";

type Picked = { group: string; x: unknown; runs: string[]; n: number };

function Summary({ data }: { data: ExploreData }) {
  const points = data.traces.reduce((s, t) => s + t.points.length, 0);
  const runs = data.traces.reduce((s, t) => s + t.points.reduce((a, p) => a + p.n, 0), 0);
  const reps = data.traces.reduce((s, t) => s + t.points.reduce((a, p) => a + p.repetitions, 0), 0);
  return (
    <p className="muted small" data-testid="explore-summary">
      {data.traces.length} {data.traces.length === 1 ? "group" : "groups"}, {points} points, {runs} runs, {reps} repetitions
      {data.unit ? `; unit ${data.unit}` : ""}
      {data.truncated && <span className="badge warn">only the newest points are shown: add filters</span>}
    </p>
  );
}

/** Which flags the plotted points carry, how many points each, and what they mean. */
function FlagLegend({ data }: { data: ExploreData }) {
  const counts = new Map<string, number>();
  for (const t of data.traces) for (const p of t.points) for (const f of p.flags) counts.set(f, (counts.get(f) ?? 0) + 1);
  if (counts.size === 0) return null;
  return (
    <div className="flag-legend small" data-testid="explore-flags">
      <strong>○ Hollow points need care</strong> (hover one for its reasons):
      <ul>
        {[...counts].map(([flag, count]) => (
          <li key={flag}>
            <span className="badge warn">{flag.replaceAll("_", " ")}</span> {plural(count, "point")}: {data.flag_reasons[flag] ?? flag}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Explore() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const { theme } = useTheme();
  const state = useMemo(() => parseExploreState(params), [params]);
  const query = useMemo(() => exploreQuery(state), [state]);
  const explore = useExplore(query);
  const catalog = useCatalog(state.workload, !query || !explore.isPending);
  const [picked, setPicked] = useState<Picked | null>(null);
  useEffect(() => void loadPlotly().catch(() => {}), []);
  const [csvError, setCsvError] = useState<unknown>(null);

  const update = useCallback(
    (patch: Partial<ExploreState>) => {
      setPicked(null);
      setParams(exploreSearch({ ...state, ...patch }), { replace: false });
    },
    [setParams, state],
  );

  const data = explore.data;
  const figure = useMemo(
    () => (data ? exploreFigure(data, { view: state.view, logx: state.logx, logy: state.logy, theme }) : null),
    [data, state.view, state.logx, state.logy, theme],
  );

  const onPointClick = useCallback(
    (p: PointClick) => {
      const custom = Array.isArray(p.customdata) ? (p.customdata as unknown[]) : [];
      const runs = Array.isArray(custom[4]) ? (custom[4] as string[]) : typeof custom[0] === "string" ? [custom[0]] : [];
      const trace = data?.traces[p.curveNumber];
      const point = trace?.points[p.pointNumber];
      if (runs.length === 1 && runs[0]) {
        navigate(`/runs/${runs[0]}`);
        return;
      }
      setPicked({ group: groupName(trace?.group, data?.group), x: point?.x, runs, n: point?.n ?? runs.length });
    },
    [data, navigate],
  );

  const cat = catalog.data;
  const dims = cat?.dimensions ?? [];
  return (
    <div className="page explore">
      <div className="page-head">
        <h1>Explore</h1>
        <div className="actions">
          {query && (
            <>
              <button
                type="button"
                className="button"
                onClick={() => {
                  setCsvError(null);
                  downloadCsv("/explore.csv", { ...query }, `${state.workload}-${state.metric}-by-${state.x}.csv`).catch(setCsvError);
                }}
              >
                Download CSV
              </button>
              <Link className="button" to={`/heatmap?${heatmapSearch(heatmapFromExplore(state))}`}>
                Heatmap
              </Link>
            </>
          )}
        </div>
      </div>
      {csvError !== null && <ErrorState error={csvError} what="the CSV" />}
      <div className="explore-layout">
        <aside className="controls card" aria-label="Plot settings">
          {catalog.isError && <ErrorState error={catalog.error} what="workloads and metrics" />}
          <label className="field">
            <span>workload</span>
            <select data-testid="workload" value={state.workload} onChange={(e) => update({ workload: e.target.value, metric: "", group: "", filter: [] })}>
              <option value="">choose…</option>
              {(cat?.workloads ?? []).map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
              {state.workload && !cat?.workloads.includes(state.workload) && <option value={state.workload}>{state.workload}</option>}
            </select>
          </label>
          <label className="field">
            <span>metric</span>
            <select data-testid="metric" value={state.metric} disabled={!state.workload} onChange={(e) => update({ metric: e.target.value })}>
              <option value="">choose…</option>
              {(cat?.metrics ?? []).map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name} ({m.unit})
                </option>
              ))}
              {state.metric && !cat?.metrics.some((m) => m.name === state.metric) && <option value={state.metric}>{state.metric}</option>}
            </select>
          </label>
          <DimensionInput label="x axis" testId="x" value={state.x} dimensions={dims} onChange={(x) => update({ x })} />
          <DimensionInput
            label="one line per"
            testId="group"
            value={state.group}
            dimensions={dims.filter((d) => d.kind !== "time")}
            allowEmpty="nothing (one line)"
            onChange={(group) => update({ group })}
          />
          <FilterEditor filters={state.filter} dimensions={dims} onChange={(filter) => update({ filter })} />
          <fieldset className="field">
            <legend>show</legend>
            <div className="segmented" role="radiogroup" aria-label="show">
              {(
                [
                  ["lines", "lines"],
                  ["box", "boxes"],
                  ["points", "points"],
                ] as [ExploreView, string][]
              ).map(([v, text]) => (
                <label key={v} className={state.view === v ? "on" : undefined}>
                  <input type="radio" name="view" value={v} checked={state.view === v} onChange={() => update({ view: v })} />
                  {text}
                </label>
              ))}
            </div>
            <label className="check">
              <input type="checkbox" checked={state.logx} disabled={!data?.x_numeric} onChange={(e) => update({ logx: e.target.checked })} /> log x
            </label>
            <label className="check">
              <input type="checkbox" checked={state.logy} onChange={(e) => update({ logy: e.target.checked })} /> log y
            </label>
          </fieldset>
        </aside>
        <section className="card plot-card">
          {!query ? (
            cat && cat.workloads.length === 0 ? (
              <Empty title="Nothing to plot yet: no runs have been uploaded.">
                <AgentHelp />
              </Empty>
            ) : (
              <Empty title="Choose a workload and a metric to plot.">
                <p>Then pick the x axis (time, a version, or a parameter such as k) and what makes one line each.</p>
              </Empty>
            )
          ) : explore.isError ? (
            <ErrorState error={explore.error} what="the plot" />
          ) : explore.isPending || !data || !figure ? (
            <Loading what="the plot" />
          ) : data.traces.length === 0 ? (
            <Empty title="No results match.">
              <p>{data.note ? `${data.note[0]!.toUpperCase()}${data.note.slice(1)}.` : ""} Check the metric name and remove a filter or two.</p>
            </Empty>
          ) : data.traces.every((t) => t.points.every((p) => p.x === null)) ? (
            <Empty title={`No run has a value for x = ${data.x}.`}>
              <p>
                Pick another x axis: a parameter or label these runs have, a built-in dimension, or <code>env.KEY</code> for a key of the environment.
              </p>
            </Empty>
          ) : (
            <>
              <Summary data={data} />
              <div className={explore.isFetching ? "refreshing" : undefined}>
                <Plot figure={figure} onPointClick={onPointClick} label={`${state.metric} against ${state.x}`} />
              </div>
              <FlagLegend data={data} />
              <p className="muted small">
                Each point is the median of its runs (a run: the median of its repetitions); bars span p5–p95 of the repetitions behind it. Hover a point for its spread and runs; click it to open the run.
              </p>
            </>
          )}
          {picked && (
            <div className="picked card" data-testid="picked">
              <div className="card-head">
                <strong>
                  {picked.group}, {state.x} = {String(picked.x)}: {plural(picked.n, "run")}
                  {picked.runs.length < picked.n ? ` (newest ${picked.runs.length})` : ""}
                </strong>
                <button type="button" className="button small" onClick={() => setPicked(null)}>
                  Close
                </button>
              </div>
              <p>
                {picked.runs.map((r) => (
                  <Link key={r} className="chip mono" to={`/runs/${r}`}>
                    {shortId(r)}
                  </Link>
                ))}
              </p>
              {picked.runs.length >= 2 && (
                <Link className="button small" to={`/compare?runs=${picked.runs.slice(0, 6).join(",")}`}>
                  Compare these runs
                </Link>
              )}
            </div>
          )}
        </section>
      </div>
      {data && data.traces.length > 0 && (
        <details className="card">
          <summary>Data table ({formatNumber(data.traces.reduce((s, t) => s + t.points.length, 0))} points)</summary>
          <table className="table">
            <thead>
              <tr>
                <th>{data.group ?? "group"}</th>
                <th>{data.x}</th>
                <th className="num">runs</th>
                <th className="num">reps</th>
                <th className="num">median</th>
                <th className="num">p5</th>
                <th className="num">p95</th>
                <th className="num">min</th>
                <th className="num">max</th>
                <th>flags</th>
              </tr>
            </thead>
            <tbody>
              {data.traces.flatMap((t) =>
                t.points.slice(0, 500).map((p, i) => (
                  <tr key={`${t.group}-${i}`}>
                    <td>{t.group ?? "–"}</td>
                    <td>{String(p.x)}</td>
                    <td className="num">{p.n}</td>
                    <td className="num">{p.repetitions}</td>
                    <td className="num">{formatNumber(p.median)}</td>
                    <td className="num">{formatNumber(p.p5)}</td>
                    <td className="num">{formatNumber(p.p95)}</td>
                    <td className="num">{formatNumber(p.min)}</td>
                    <td className="num">{formatNumber(p.max)}</td>
                    <td title={p.flags.map((f) => data.flag_reasons[f] ?? f).join("\n")}>{p.flags.join(", ")}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </details>
      )}
    </div>
  );
}

import type { UseQueryResult } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { useNavigate } from "react-router-dom";
import { Plot, type PointClick } from "../../../components/charts/Plot";
import { AgentHelp } from "../../../components/ui/AgentHelp";
import { Empty, ErrorState, Loading } from "../../../components/ui/States";
import { useTheme } from "../../../lib/use-theme";
import type { Explore, ExploreQuery } from "../api/get-explore";
import type { Catalog } from "../catalog";
import { exploreFigure } from "../figures";
import { pickPoint, type Picked } from "../picked";
import { exploreSearch, type ExploreState } from "../url-state";
import { ExploreSummary, FlagLegend } from "./ExploreSummary";
import { DurabilityLegend, MixNote } from "./MixNote";
import { PickedRuns } from "./PickedRuns";
import { paths } from "../../../lib/paths";

type Props = {
  state: ExploreState;
  query: ExploreQuery | null;
  explore: UseQueryResult<Explore>;
  catalog: Catalog | undefined;
};

/** The plot, or why there is none yet; a click on a point opens its run, or lists its runs. */
export function ExploreChart({ state, query, explore, catalog }: Props) {
  const navigate = useNavigate();
  const { theme } = useTheme();
  // A pick belongs to the settings it was made under: any change of them closes it.
  const settings = exploreSearch(state).toString();
  const [picked, setPicked] = useState<{ settings: string; picked: Picked } | null>(null);
  if (picked && picked.settings !== settings) setPicked(null);

  const data = explore.data;
  const figure = useMemo(
    () => (data ? exploreFigure(data, { view: state.view, logx: state.logx, logy: state.logy, theme }) : null),
    [data, state.view, state.logx, state.logy, theme],
  );
  const onPointClick = useCallback(
    (p: PointClick) => {
      const pick = pickPoint(data, p);
      if (pick.runs.length === 1 && pick.runs[0]) {
        navigate(paths.run(pick.runs[0]));
        return;
      }
      setPicked({ settings, picked: pick });
    },
    [data, navigate, settings],
  );

  return (
    <section className="card plot-card">
      {!query ? (
        catalog && catalog.workloads.length === 0 ? (
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
          <ExploreSummary data={data} exactHref={paths.explore(exploreSearch({ ...state, exact: true }))} />
          <MixNote data={data} state={state} />
          <div className={explore.isFetching ? "refreshing" : undefined}>
            <Plot figure={figure} onPointClick={onPointClick} label={`${state.metric} against ${state.x}`} />
          </div>
          <FlagLegend data={data} />
          <DurabilityLegend data={data} />
          <p className="muted small">
            Each point is the median of its runs (a run: the median of its repetitions); bars span p5–p95 of the repetitions behind it. Hover a point for its
            spread and runs; click it to open the run.
          </p>
        </>
      )}
      {picked && picked.settings === settings && <PickedRuns picked={picked.picked} x={state.x} onClose={() => setPicked(null)} />}
    </section>
  );
}

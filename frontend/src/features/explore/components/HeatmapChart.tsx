import { useMemo } from "react";
import { Plot } from "../../../components/charts/Plot";
import { Empty, ErrorState, Loading } from "../../../components/ui/States";
import { useTheme } from "../../../lib/use-theme";
import type { useHeatmap } from "../api/get-heatmap";
import { heatmapOf } from "../heatmap-figure";
import type { HeatmapState } from "../url-state";

/** The heatmap, or what is missing for one. */
export function HeatmapChart({ state, heatmap }: { state: HeatmapState; heatmap: ReturnType<typeof useHeatmap> }) {
  const { theme } = useTheme();
  const answers = heatmap.data;
  const ready = answers.length > 0 && answers.every((d) => d !== undefined);
  const figure = useMemo(() => heatmapOf(answers, state, theme), [answers, state, theme]);
  return (
    <section className="card plot-card">
      {heatmap.asked === 0 ? (
        <Empty title="Choose a workload, a metric and two dimensions (for example segsize × k).">
          <p>
            Each cell is the median of the runs with that pair of values; ⚠ marks a cell whose numbers need care (hover for why). Pick a dimension and two of
            its values (two versions, say) to see their difference, coloured around zero: blue is better, red worse.
          </p>
        </Empty>
      ) : heatmap.error ? (
        <ErrorState error={heatmap.error} what="the heatmap" />
      ) : !ready ? (
        <Loading what="the heatmap" />
      ) : !figure ? (
        <Empty title="No results match: remove a filter, or check that both dimensions are set on these runs." />
      ) : (
        <>
          {state.diff && !heatmap.diff && <p className="muted">Choose a baseline and a value to compare to see the difference.</p>}
          <Plot figure={figure} label={`${state.metric} over ${state.x} and ${state.y}`} height={520} />
        </>
      )}
    </section>
  );
}

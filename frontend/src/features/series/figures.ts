// Pure figure builder for a series' history: medians over time with their p5..p95 spread and,
// when asked, every sample.
import { spreadErrorBars } from "../../components/charts/error-bars";
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import type { Theme } from "../../lib/theme";
import type { SeriesPoints } from "./api/get-series-points";

export function seriesFigure(points: SeriesPoints, theme: Theme): Figure {
  const layout = baseLayout(theme);
  const color = colorAt(0);
  const unit = points.series.unit;
  const data: PlotData[] = [];
  if (points.samples) {
    const x: string[] = [];
    const y: number[] = [];
    const runs: string[] = [];
    points.samples.forEach((samples, i) => {
      for (const s of samples) {
        x.push(points.t[i] ?? "");
        y.push(s);
        runs.push(points.run[i] ?? "");
      }
    });
    data.push({
      type: "scatter",
      mode: "markers",
      name: "samples",
      x,
      y,
      customdata: runs,
      marker: { color: theme === "dark" ? "rgba(216,222,233,0.35)" : "rgba(31,41,51,0.3)", size: 4 },
      hovertemplate: `sample %{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
    });
  }
  data.push({
    type: "scatter",
    mode: "lines+markers",
    name: "median",
    x: points.t,
    y: points.value,
    customdata: points.run,
    error_y: spreadErrorBars({ median: points.value, p5: points.p5, p95: points.p95, color }),
    marker: { color, size: 6 },
    line: { color, width: 1.5 },
    hovertemplate: `%{x}<br>median %{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
  });
  const better = points.series.direction === "higher" ? ", higher is better" : points.series.direction === "lower" ? ", lower is better" : "";
  return {
    data,
    layout: {
      ...layout,
      showlegend: data.length > 1,
      xaxis: axis(layout, "xaxis", { title: { text: "time" }, type: "date" }),
      yaxis: axis(layout, "yaxis", { title: { text: `${points.series.metric} (${unit})${better}` }, rangemode: "tozero" }),
    },
  };
}

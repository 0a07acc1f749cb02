// Pure figure builders: an alert's series around its change, and the change points a series'
// history marks.
import { spreadErrorBars } from "../../components/charts/error-bars";
import { axis, baseLayout, colorAt, type Figure, type PlotData } from "../../components/charts/figure";
import { formatPercent } from "../../lib/format";
import type { Theme } from "../../lib/theme";
import type { AlertDetail } from "./api/get-alert";
import type { SeriesChangePoint } from "./api/get-change-points";
import { causeSummary, type Tone } from "./format";

export const REGRESSION_COLOR = "#D55E00";
export const IMPROVEMENT_COLOR = "#009E73";

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A vertical line across the plot at x (plotly shape in paper height). */
function vline(x: string, color: string, dash: string, name: string): Record<string, unknown> {
  return { type: "line", xref: "x", yref: "paper", x0: x, x1: x, y0: 0, y1: 1, line: { color, width: 2, dash }, name };
}

export function alertFigure(alert: AlertDetail, theme: Theme): Figure {
  const layout = baseLayout(theme);
  const p = alert.points;
  const unit = alert.series.unit;
  const color = colorAt(0);
  const changeColor = alert.kind === "regression" ? REGRESSION_COLOR : IMPROVEMENT_COLOR;
  const data: PlotData[] = [
    {
      type: "scatter",
      mode: "lines+markers",
      name: "median of each run",
      x: p.started_at,
      y: p.value,
      customdata: p.run_uuid,
      error_y: spreadErrorBars({ median: p.value, p5: p.p5, p95: p.p95, color }),
      marker: { color, size: 6 },
      line: { color, width: 1.5 },
      hovertemplate: `%{x}<br>median %{y:.4g} ${unit}<br>run %{customdata}<extra></extra>`,
    },
  ];
  const changeX = alert.change_at;
  const ci = p.change_index;
  const first = p.started_at[0];
  const last = p.started_at[p.started_at.length - 1];
  if (first !== undefined && ci !== null && ci > 0) {
    data.push(level("before", [first, p.started_at[ci - 1] ?? changeX], alert.before, unit, theme === "dark" ? "#9aa5b1" : "#616e7c"));
  }
  if (last !== undefined) data.push(level("after", [changeX, last], alert.after, unit, changeColor));
  const dash = alert.tentative ? "dash" : "solid";
  return {
    data,
    layout: {
      ...layout,
      showlegend: true,
      shapes: [vline(changeX, changeColor, dash, "change")],
      annotations: [
        {
          x: changeX,
          xref: "x",
          y: 1,
          yref: "paper",
          yanchor: "bottom",
          text: `${formatPercent(alert.change_pct)}${alert.tentative ? " (tentative)" : ""}`,
          showarrow: false,
          font: { color: changeColor },
        },
      ],
      margin: { ...(layout.margin as object), t: 28 },
      xaxis: axis(layout, "xaxis", { title: { text: "time" }, type: "date" }),
      yaxis: axis(layout, "yaxis", { title: { text: `${alert.series.metric} (${unit})` }, rangemode: "tozero" }),
    },
  };
}

function level(name: string, x: string[], y: number, unit: string, color: string): PlotData {
  return {
    type: "scatter",
    mode: "lines",
    name: `${name}: ${y.toPrecision(4)} ${unit}`,
    x,
    y: [y, y],
    line: { color, width: 2, dash: "dot" },
    hoverinfo: "skip",
  };
}

export function changePointTone(cp: Pick<SeriesChangePoint, "kind">): Tone {
  return cp.kind === "regression" ? "worse" : "better";
}

/** Vertical lines and flags for a series' change points: red regressions, green improvements,
 * dashed when tentative. Layout only (shapes and annotations, no trace), so that they join a
 * plot already drawn by Plotly.relayout without its points being drawn again. A flag (a
 * triangle at the top of its line) names the change on hover; its `name` is `alert:<id>` when
 * the change opened an alert (a click opens it), else the run's uuid. */
export function changePointMarks(
  changePoints: SeriesChangePoint[],
  unit: string,
): { shapes: Record<string, unknown>[]; annotations: Record<string, unknown>[] } {
  const colors = changePoints.map((cp) => (cp.kind === "regression" ? REGRESSION_COLOR : IMPROVEMENT_COLOR));
  const shapes = changePoints.map((cp, i) => vline(cp.started_at, colors[i] ?? REGRESSION_COLOR, cp.tentative ? "dash" : "solid", "change point"));
  const annotations = changePoints.map((cp, i) => {
    const cause = causeSummary(cp.cause, 3);
    const color = colors[i] ?? REGRESSION_COLOR;
    return {
      visible: true,
      x: cp.started_at,
      xref: "x",
      y: 1,
      yref: "paper",
      yanchor: "top",
      xanchor: "center",
      text: "▼",
      showarrow: false,
      font: { size: 16, color },
      // A click on the flag: plotly_clickannotation (components/charts/Plot.tsx).
      captureevents: true,
      hovertext: [
        `<b>${cp.kind} ${formatPercent(cp.change_pct)}</b>${cp.tentative ? " (tentative)" : ""}`,
        `${cp.before.toPrecision(4)} → ${cp.after.toPrecision(4)} ${escapeHtml(unit)}`,
        cause ? `cause: ${escapeHtml(cause)}` : "no environment or label change with it",
        cp.alert_id !== null ? `click to open alert #${cp.alert_id}` : "no alert (below the thresholds, or muted)",
      ].join("<br>"),
      hoverlabel: { bgcolor: color, bordercolor: "#ffffff", font: { color: "#ffffff" } },
      name: cp.alert_id !== null ? `alert:${cp.alert_id}` : cp.run_uuid,
    };
  });
  return { shapes, annotations };
}

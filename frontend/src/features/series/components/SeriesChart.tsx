import { useCallback, useMemo } from "react";
import { useNavigate } from "react-router-dom";
import { Plot, type PointClick } from "../../../components/charts/Plot";
import { Empty } from "../../../components/ui/States";
import { formatCount, formatNumber, formatTime } from "../../../lib/format";
import { useTheme } from "../../../lib/use-theme";
import { withChangePoints, type SeriesChangePoint } from "../../alerts";
import type { SeriesPoints } from "../api/get-series-points";
import { seriesFigure } from "../figures";

/** A series' history with its change points drawn over it (they come from their own request and
 * join the plot when they arrive); a click opens a point's run, or a change point's alert. */
export function SeriesChart({ points, changePoints }: { points: SeriesPoints; changePoints: SeriesChangePoint[] }) {
  const navigate = useNavigate();
  const { theme } = useTheme();
  const figure = useMemo(() => withChangePoints(seriesFigure(points, theme), changePoints, points.series.unit), [points, changePoints, theme]);
  const onClick = useCallback(
    (p: PointClick) => {
      if (typeof p.customdata !== "string") return;
      navigate(p.customdata.startsWith("alert:") ? `/alerts/${p.customdata.slice(6)}` : `/runs/${p.customdata}`);
    },
    [navigate],
  );
  const s = points.series;
  const values = points.value;
  const last = values[values.length - 1];
  const first = values[0];
  return (
    <section className="card">
      <p className="muted small" data-testid="series-summary">
        {formatCount(s.points)} points
        {values.length < s.points
          ? ` (the newest ${formatCount(values.length)} shown) · first shown ${formatTime(points.t[0])}`
          : ` · first ${formatTime(points.t[0])}`}
        {" · "}last {formatTime(s.last_at)}
        {first !== undefined && last !== undefined && ` · newest median ${formatNumber(last)} ${s.unit}`}
        {" · "}
        {s.direction === "higher" ? "higher is better" : s.direction === "lower" ? "lower is better" : ""}
      </p>
      {values.length === 0 ? (
        <Empty title="This series has no points yet." />
      ) : (
        <>
          <Plot figure={figure} onPointClick={onClick} label={`history of ${s.metric}`} />
          <p className="muted small">
            Bars span p5 to p95 of each run's samples; click a point to open its run.
            {changePoints.length > 0 &&
              " Triangles and vertical lines mark change points (red worse, green better, dashed while tentative); click one to open its alert."}
          </p>
        </>
      )}
    </section>
  );
}

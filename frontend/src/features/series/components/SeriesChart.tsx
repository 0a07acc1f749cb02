import { useCallback, useEffect, useMemo } from "react";
import { useNavigate } from "react-router-dom";
import { loadPlotly, Plot, type PointClick } from "../../../components/charts/Plot";
import { Empty } from "../../../components/ui/States";
import { formatCount, formatNumber, formatTime } from "../../../lib/format";
import { afterMicrosecond } from "../../../lib/time";
import { useTheme } from "../../../lib/use-theme";
import type { SeriesChangePoint } from "../../alerts";
import { DEFAULT_WINDOW, WINDOW_SIZES, type SeriesPoints } from "../api/get-series-points";
import { seriesFigure, seriesMarks } from "../figures";
import { holdsNewest } from "../window";
import { paths } from "../../../lib/paths";

type Props = {
  points: SeriesPoints;
  changePoints: SeriesChangePoint[];
  /** the window shown: the newest points before this time, or the newest of all (null) */
  until?: string | null;
  /** whether another window is on its way (this one stays shown meanwhile) */
  loading?: boolean;
  /** to another window: the newest points before this time, or the newest of all (null) */
  onWindow?: (until: string | null) => void;
  /** how many points a window holds, and a way to change it */
  limit?: number;
  onLimit?: (limit: number) => void;
};

/** A series' history with its change points drawn over it (they come from their own request and
 * join the plot when they arrive); a click opens a point's run, or a change point's alert. */
export function SeriesChart({ points, changePoints, until = null, loading = false, onWindow, limit = DEFAULT_WINDOW, onLimit }: Props) {
  const navigate = useNavigate();
  // plotly loads while the points are on their way (it takes longer, cold).
  useEffect(() => {
    void loadPlotly().catch(() => undefined);
  }, []);
  const { theme } = useTheme();
  // The change points among the points shown (an older window holds none of the newest).
  const shownChanges = useMemo(() => changePointsWithin(changePoints, points.t), [changePoints, points.t]);
  // The points are drawn as soon as they come; the change points (their own request, the
  // detector's: often later) and the version names placed for the plot's width are layout laid
  // over them by Plotly.relayout, without drawing the points again.
  const figure = useMemo(() => seriesFigure(points, theme), [points, theme]);
  const overlay = useCallback((width: number) => seriesMarks(points, theme, shownChanges, width), [points, theme, shownChanges]);

  const onClick = useCallback(
    (p: PointClick) => {
      if (typeof p.customdata !== "string") return;
      navigate(p.customdata.startsWith("alert:") ? paths.alert(p.customdata.slice(6)) : paths.run(p.customdata));
    },
    [navigate],
  );
  const s = points.series;
  const values = points.value;
  const last = values[values.length - 1];
  const first = values[0];
  // An older window, or the newest one: a window asked for before a time after the series'
  // newest point (a time to come, typed or kept in an address) holds the newest points.
  const older = until !== null && !holdsNewest(points.t, s.last_at);
  return (
    <section className="card">
      <div className="summary-row">
        <p className="muted small" data-testid="series-summary">
          {formatCount(s.points)} points
          {until !== null && values.length === 0
            ? ` · none before ${formatTime(until)} · last of all ${formatTime(s.last_at)}`
            : older
              ? ` · ${formatCount(values.length)} shown, ${points.older ? "" : "the oldest, "}from ${formatTime(points.t[0])} to ${formatTime(points.t[points.t.length - 1])} · last of all ${formatTime(s.last_at)}`
              : `${values.length < s.points ? ` (the newest ${formatCount(values.length)} shown) · first shown ${formatTime(points.t[0])}` : ` · first ${formatTime(points.t[0])}`} · last ${formatTime(s.last_at)}`}
          {!older && first !== undefined && last !== undefined && ` · newest median ${formatNumber(last)} ${s.unit}`}
          {" · "}
          {s.direction === "higher" ? "higher is better" : s.direction === "lower" ? "lower is better" : ""}
        </p>
        {onWindow && (
          <div className="pager" data-testid="series-window">
            {onLimit && points.series.points > Math.min(...WINDOW_SIZES) && (
              <label className="field inline">
                <span>points shown</span>
                <select value={limit} disabled={loading} onChange={(e) => onLimit(Number(e.target.value))}>
                  {[...WINDOW_SIZES]
                    .sort((a, b) => a - b)
                    .map((n) => (
                      <option key={n} value={n}>
                        {formatCount(n)}
                      </option>
                    ))}
                </select>
              </label>
            )}
            {points.older && points.t[0] && (
              <button type="button" className="button small" disabled={loading} onClick={() => onWindow(afterMicrosecond(points.t[0] ?? ""))}>
                ← Older
              </button>
            )}
            {older && (
              <button type="button" className="button small" disabled={loading} onClick={() => onWindow(null)}>
                Newest →
              </button>
            )}
          </div>
        )}
      </div>
      {values.length === 0 ? (
        <Empty title={until !== null ? `This series has no points before ${formatTime(until)}.` : "This series has no points yet."} />
      ) : (
        <>
          <div className={loading ? "loading-dim" : undefined}>
            <Plot figure={figure} overlay={overlay} onPointClick={onClick} label={`history of ${s.metric}`} />
          </div>
          <p className="muted small">
            The shaded band spans p5 to p95 of each run's samples; click a point to open its run.
            {(points.versions?.length ?? 0) > 1 &&
              " Dotted lines mark where a version changes, named at the top where the name fits (a point's hover names its versions)."}
            {shownChanges.length > 0 &&
              " Triangles and vertical lines mark change points (red worse, green better, dashed while tentative); hover a triangle for the change, click it to open its alert."}
          </p>
        </>
      )}
    </section>
  );
}

/** The change points whose time falls within the points shown (`t`, oldest first). */
export function changePointsWithin(changePoints: SeriesChangePoint[], t: string[]): SeriesChangePoint[] {
  if (t.length === 0) return [];
  const from = Date.parse(t[0] ?? "");
  const to = Date.parse(t[t.length - 1] ?? "");
  return changePoints.filter((c) => {
    const at = Date.parse(c.started_at);
    return at >= from && at <= to;
  });
}

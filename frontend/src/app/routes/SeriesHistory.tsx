import { useCallback, useMemo } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router-dom";
import { Plot, type PointClick } from "../../components/charts/Plot";
import { Empty, QueryView } from "../../components/ui/States";
import { useSeriesPoints } from "../../features/series/api/get-series-points";
import { seriesFigure } from "../../features/series/figures";
import { seriesExploreLink } from "../../features/runs/links";
import { formatNumber, formatTime, formatValue } from "../../lib/format";
import { useTheme } from "../../lib/use-theme";
import { useChangePoints } from "../../features/alerts/api/get-change-points";
import { withChangePoints } from "../../features/alerts/figures";

export function SeriesHistory() {
  const { id = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const samples = params.get("samples") === "1";
  const navigate = useNavigate();
  const { theme } = useTheme();
  const points = useSeriesPoints(Number(id), samples);
  // Change points come from their own request and are drawn over the history when they arrive.
  const changes = useChangePoints(Number(id));
  const figure = useMemo(
    () => (points.data ? withChangePoints(seriesFigure(points.data, theme), changes.data?.change_points ?? [], points.data.series.unit) : null),
    [points.data, changes.data, theme],
  );
  const onClick = useCallback(
    (p: PointClick) => {
      if (typeof p.customdata !== "string") return;
      navigate(p.customdata.startsWith("alert:") ? `/alerts/${p.customdata.slice(6)}` : `/runs/${p.customdata}`);
    },
    [navigate],
  );

  return (
    <div className="page">
      <QueryView query={points} what={`series ${id}`}>
        {(data) => {
          const s = data.series;
          const values = data.value;
          const last = values[values.length - 1];
          const first = values[0];
          return (
            <>
              <div className="page-head">
                <div>
                  <h1>
                    {s.metric} <span className="muted">· {s.workload} on {s.agent}</span>
                  </h1>
                  <p className="muted mono small">
                    {s.target}{" "}
                    {Object.entries(s.parameters)
                      .map(([k, v]) => `${k}=${formatValue(v)}`)
                      .join(" ")}{" "}
                    {Object.entries(s.labels)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(" ")}
                  </p>
                </div>
                <div className="actions">
                  <label className="check">
                    <input type="checkbox" checked={samples} onChange={(e) => setParams(e.target.checked ? { samples: "1" } : {}, { replace: true })} /> every sample
                  </label>
                  <Link className="button" to={seriesExploreLink({ workload: s.workload, agent: s.agent, target: s.target, parameters: s.parameters }, s.metric)}>
                    Open in Explore
                  </Link>
                </div>
              </div>
              <section className="card">
                <p className="muted small" data-testid="series-summary">
                  {s.points} points{values.length < s.points ? ` (newest ${values.length} shown)` : ""} · first {formatTime(data.t[0])} · last {formatTime(s.last_at)}
                  {first !== undefined && last !== undefined && ` · newest median ${formatNumber(last)} ${s.unit}`}
                  {" · "}
                  {s.direction === "higher" ? "higher is better" : s.direction === "lower" ? "lower is better" : ""}
                </p>
                {values.length === 0 || !figure ? (
                  <Empty title="This series has no points yet." />
                ) : (
                  <>
                    <Plot figure={figure} onPointClick={onClick} label={`history of ${s.metric}`} />
                    <p className="muted small">
                      Bars span p5 to p95 of each run's samples; click a point to open its run.
                      {(changes.data?.change_points.length ?? 0) > 0 &&
                        " Triangles and vertical lines mark change points (red worse, green better, dashed while tentative); click one to open its alert."}
                    </p>
                  </>
                )}
              </section>
            </>
          );
        }}
      </QueryView>
    </div>
  );
}
